// Busy table of a job through Go's database/sql and github.com/mattn/go-sqlite3
// (Debian: golang-github-mattn-go-sqlite3-dev, built against Debian's libsqlite3).
//
// usage: busy EXTENSION JOB_DIR
//
// database/sql keeps a pool and opens connections whenever it needs one (two queries at once, a
// connection closed after idling). Loading the extension or calling rocpd_open through one
// db.Exec reaches ONE connection: a later query that lands on another one fails ("no such table")
// or, worse, answers from a connection that has the extension but never opened the job (an empty
// busy table, no error). The driver's Extensions and ConnectHook run on every new connection.
package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"
	"strings"

	sqlite3 "github.com/mattn/go-sqlite3"
)

const busyQuery = `SELECT db, gpu, ops, busy_ns, span_ns, sum_ns,
       printf('%.1f', 100.0 * busy_ns / span_ns) AS busy_pct
FROM rocpd_busy ORDER BY db, gpu`

// rocpdDriver returns a driver whose every connection loads the extension (default entry point
// sqlite3_rocpdext_init, derived from the file name) and opens the job.
func rocpdDriver(ext, job string) *sqlite3.SQLiteDriver {
	return &sqlite3.SQLiteDriver{
		Extensions: []string{ext},
		ConnectHook: func(c *sqlite3.SQLiteConn) error {
			_, err := c.Exec("SELECT rocpd_open(?)", []driver.Value{job})
			return err
		},
	}
}

// querier is what *sql.DB and *sql.Conn have in common.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// busyTable returns the busy table as tab-separated text, header first.
func busyTable(ctx context.Context, q querier) (string, error) {
	rows, err := q.QueryContext(ctx, busyQuery)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	columns, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var out strings.Builder
	out.WriteString(strings.Join(columns, "\t") + "\n")
	values := make([]sql.NullString, len(columns))
	pointers := make([]any, len(columns))
	for i := range values {
		pointers[i] = &values[i]
	}
	for rows.Next() {
		if err := rows.Scan(pointers...); err != nil {
			return "", err
		}
		fields := make([]string, len(values))
		for i, v := range values {
			fields[i] = v.String
		}
		out.WriteString(strings.Join(fields, "\t") + "\n")
	}
	return out.String(), rows.Err()
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: busy EXTENSION JOB_DIR")
		os.Exit(2)
	}
	sql.Register("sqlite3_rocpd", rocpdDriver(os.Args[1], os.Args[2]))
	db, err := sql.Open("sqlite3_rocpd", ":memory:")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer db.Close()
	table, err := busyTable(context.Background(), db)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Print(table)
}
