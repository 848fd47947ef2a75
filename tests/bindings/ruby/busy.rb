#!/usr/bin/ruby
# Busy table of a job through the sqlite3 gem (Debian: ruby-sqlite3).
# usage: ruby busy.rb EXTENSION JOB_DIR
require "sqlite3"

ext, job = ARGV
db = SQLite3::Database.new(":memory:")
db.enable_load_extension(true)   # per connection
db.load_extension(ext)
db.enable_load_extension(false)
db.execute("SELECT rocpd_open(?)", [job])

query = <<~SQL
  SELECT db, gpu, ops, busy_ns, span_ns, sum_ns,
         printf('%.1f', 100.0 * busy_ns / span_ns) AS busy_pct
  FROM rocpd_busy ORDER BY db, gpu
SQL
columns, *rows = db.execute2(query)
puts columns.join("\t")
rows.each { |row| puts row.join("\t") }
db.close
