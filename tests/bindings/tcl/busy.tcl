#!/usr/bin/tclsh
# Busy table of a job through Tcl's sqlite3 package (Debian: libsqlite3-tcl).
# usage: tclsh busy.tcl EXTENSION JOB_DIR
package require sqlite3
lassign $argv ext job

sqlite3 db :memory:
db enable_load_extension 1   ;# per connection; also enables SQL's load_extension()
db eval {SELECT load_extension($ext)}
db enable_load_extension 0
db eval {SELECT rocpd_open($job)}

set query {SELECT db, gpu, ops, busy_ns, span_ns, sum_ns,
       printf('%.1f', 100.0 * busy_ns / span_ns) AS busy_pct
FROM rocpd_busy ORDER BY db, gpu}
set header 1
db eval $query row {
    if {$header} { puts [join $row(*) "\t"]; set header 0 }
    set values {}
    foreach column $row(*) { lappend values $row($column) }
    puts [join $values "\t"]
}
db close
