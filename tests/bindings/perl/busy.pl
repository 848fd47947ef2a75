#!/usr/bin/perl
# Busy table of a job through DBI and DBD::SQLite (Debian: libdbd-sqlite3-perl).
# usage: perl busy.pl EXTENSION JOB_DIR
use strict;
use warnings;
use DBI;

my ($ext, $job) = @ARGV;
my $dbh = DBI->connect("dbi:SQLite:dbname=:memory:", "", "", { RaiseError => 1, PrintError => 0 });
$dbh->sqlite_enable_load_extension(1);   # per connection handle
$dbh->sqlite_load_extension($ext);
$dbh->sqlite_enable_load_extension(0);
$dbh->do("SELECT rocpd_open(?)", undef, $job);

my $sth = $dbh->prepare(<<'SQL');
SELECT db, gpu, ops, busy_ns, span_ns, sum_ns,
       printf('%.1f', 100.0 * busy_ns / span_ns) AS busy_pct
FROM rocpd_busy ORDER BY db, gpu
SQL
$sth->execute;
print join("\t", @{ $sth->{NAME} }), "\n";
while (my @row = $sth->fetchrow_array) {
    print join("\t", @row), "\n";
}
$dbh->disconnect;
