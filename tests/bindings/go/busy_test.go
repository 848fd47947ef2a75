// The pool pitfall, tested: with the ConnectHook driver of busy.go a second pooled connection
// answers exactly as the first; loading through one connection only leaves the second without the
// extension (an error) or without the job (an error saying no trace is open).
//
// Run: ROCPD_EXT=... ROCPD_BINDINGS_JOB=... go test (tests/bindings/run_binding.py does it)
package main

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"

	sqlite3 "github.com/mattn/go-sqlite3"
)

func env(t *testing.T, name string) string {
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set", name)
	}
	return v
}

// twoConns holds two connections of db at once, so the pool must open two distinct ones.
func twoConns(t *testing.T, db *sql.DB) (*sql.Conn, *sql.Conn) {
	ctx := context.Background()
	first, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	second, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Distinct: a TEMP table made on the first is invisible on the second.
	if _, err := first.ExecContext(ctx, "CREATE TEMP TABLE only_first(x)"); err != nil {
		t.Fatal(err)
	}
	if _, err := second.ExecContext(ctx, "SELECT * FROM only_first"); err == nil {
		t.Fatal("the pool handed out the same connection twice")
	}
	return first, second
}

func TestSecondPooledConnectionHasExtensionAndJob(t *testing.T) {
	sql.Register("sqlite3_rocpd_hooked", rocpdDriver(env(t, "ROCPD_EXT"), env(t, "ROCPD_BINDINGS_JOB")))
	db, err := sql.Open("sqlite3_rocpd_hooked", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	first, second := twoConns(t, db)
	defer first.Close()
	defer second.Close()
	ctx := context.Background()
	a, err := busyTable(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	b, err := busyTable(ctx, second)
	if err != nil {
		t.Fatalf("second pooled connection: %v", err)
	}
	if strings.Count(a, "\n") < 2 {
		t.Fatalf("first connection: empty busy table:\n%s", a)
	}
	if a != b {
		t.Fatalf("the two pooled connections differ:\n%s\n---\n%s", a, b)
	}
}

func TestLoadingThroughOneConnectionOnlyFailsOnTheSecond(t *testing.T) {
	ext, job := env(t, "ROCPD_EXT"), env(t, "ROCPD_BINDINGS_JOB")
	sql.Register("sqlite3_plain", &sqlite3.SQLiteDriver{})
	db, err := sql.Open("sqlite3_plain", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	first, second := twoConns(t, db)
	defer first.Close()
	defer second.Close()
	ctx := context.Background()
	err = first.Raw(func(dc any) error {
		return dc.(*sqlite3.SQLiteConn).LoadExtension(ext, "sqlite3_rocpdext_init")
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.ExecContext(ctx, "SELECT rocpd_open(?)", job); err != nil {
		t.Fatal(err)
	}
	if _, err := busyTable(ctx, first); err != nil {
		t.Fatal(err)
	}
	_, err = busyTable(ctx, second)
	if err == nil || !strings.Contains(err.Error(), "no such table: rocpd_busy") {
		t.Fatalf("second connection: want 'no such table: rocpd_busy', got %v", err)
	}
}

func TestOpeningTheJobThroughOneConnectionLeavesTheSecondWithoutMembers(t *testing.T) {
	ext, job := env(t, "ROCPD_EXT"), env(t, "ROCPD_BINDINGS_JOB")
	sql.Register("sqlite3_ext_only", &sqlite3.SQLiteDriver{Extensions: []string{ext}})
	db, err := sql.Open("sqlite3_ext_only", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	first, second := twoConns(t, db)
	defer first.Close()
	defer second.Close()
	ctx := context.Background()
	if _, err := first.ExecContext(ctx, "SELECT rocpd_open(?)", job); err != nil {
		t.Fatal(err)
	}
	a, err := busyTable(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(a, "\n") < 2 {
		t.Fatalf("want rows on the first connection:\n%s", a)
	}
	// The second connection has the extension but no member: the view says so instead of
	// answering with no rows.
	_, err = busyTable(ctx, second)
	if err == nil || !strings.Contains(err.Error(), "no trace is open on this connection") {
		t.Fatalf("second connection: want 'no trace is open on this connection', got %v", err)
	}
}
