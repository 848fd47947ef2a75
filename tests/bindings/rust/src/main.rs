//! Busy table of a job through rusqlite (Debian: librust-rusqlite-dev).
//! usage: rocpd-busy EXTENSION JOB_DIR
use rusqlite::{types::ValueRef, Connection, LoadExtensionGuard};

const BUSY_QUERY: &str = "SELECT db, gpu, ops, busy_ns, span_ns, sum_ns,
       printf('%.1f', 100.0 * busy_ns / span_ns) AS busy_pct
FROM rocpd_busy ORDER BY db, gpu";

fn text(value: ValueRef) -> String {
    match value {
        ValueRef::Null => String::new(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(r) => r.to_string(),
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
        ValueRef::Blob(b) => format!("<{} bytes>", b.len()),
    }
}

fn main() -> rusqlite::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: rocpd-busy EXTENSION JOB_DIR");
        std::process::exit(2);
    }
    let con = Connection::open_in_memory()?;
    // Per connection. The guard enables extension loading and disables it again when dropped.
    unsafe {
        let _guard = LoadExtensionGuard::new(&con)?;
        con.load_extension(&args[1], None)?;
    }
    con.query_row("SELECT rocpd_open(?1)", [&args[2]], |_| Ok(()))?;

    let mut stmt = con.prepare(BUSY_QUERY)?;
    let columns: Vec<String> = stmt.column_names().iter().map(|c| c.to_string()).collect();
    println!("{}", columns.join("\t"));
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let fields: Vec<String> = (0..columns.len()).map(|i| text(row.get_ref_unwrap(i))).collect();
        println!("{}", fields.join("\t"));
    }
    Ok(())
}
