#!/usr/bin/env node
// Busy table of a job through better-sqlite3 (npm; compiled from source, its own SQLite inside).
// usage: node busy.js EXTENSION JOB_DIR
'use strict';
const Database = require('better-sqlite3');

const [ext, job] = process.argv.slice(2);
const db = new Database(':memory:');
db.loadExtension(ext); // per connection
db.prepare('SELECT rocpd_open(?)').get(job);

const stmt = db.prepare(`SELECT db, gpu, ops, busy_ns, span_ns, sum_ns,
       printf('%.1f', 100.0 * busy_ns / span_ns) AS busy_pct
FROM rocpd_busy ORDER BY db, gpu`).raw(true);
console.log(stmt.columns().map((c) => c.name).join('\t'));
for (const row of stmt.iterate()) console.log(row.join('\t'));
db.close();
