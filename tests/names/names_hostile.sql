-- names: inputs a hostile trace or schema can hand to demangle/kernel_short_name, through the
-- real sqlite3 shell. Expected texts: llvm-cxxfilt-19 (LLVM backend) and GNU c++filt (fallback)
-- for the closure type; the documented rules for the rest.
CREATE TEMP VIEW llvm AS SELECT json_extract(rocpd_build_info(), '$.demangler') LIKE 'llvm-%' AS is_llvm;

-- The closure type of a lambda: its empty parameter list made the demangler's arena hand out a
-- pointer into a block it had not allocated yet (segfault).
SELECT 'FAIL: demangle closure type' WHERE demangle('_ZUlvE_')
  IS NOT (SELECT CASE WHEN is_llvm THEN '''lambda''()' ELSE '{lambda()#1}' END FROM llvm);
SELECT 'FAIL: short name of closure type' WHERE kernel_short_name('_ZUlvE_') IS NOT '{lambda#1}';
SELECT 'FAIL: closure type, second call (cached)' WHERE demangle('_ZUlvE_') IS NOT demangle('_ZUlvE_');
SELECT 'FAIL: closure in a class' WHERE (SELECT is_llvm FROM llvm) AND demangle('_ZN1AUlvE_E') IS NOT 'A::''lambda''()';

-- Empty, NUL bytes, invalid UTF-8: unchanged.
SELECT 'FAIL: empty' WHERE demangle('') IS NOT '' OR kernel_short_name('') IS NOT '';
SELECT 'FAIL: embedded NUL' WHERE demangle(CAST(x'5f5a33660076' AS TEXT)) IS NOT CAST(x'5f5a33660076' AS TEXT);
SELECT 'FAIL: embedded NUL short' WHERE kernel_short_name(CAST(x'5f5a33660076' AS TEXT)) IS NOT CAST(x'5f5a33660076' AS TEXT);
SELECT 'FAIL: lone continuation bytes' WHERE demangle(CAST(x'5f5a80808080' AS TEXT)) IS NOT CAST(x'5f5a80808080' AS TEXT);

-- 10 MB names: not mangled, mangled-looking, and a declaration-looking one, all unchanged.
CREATE TEMP TABLE big(name TEXT);
INSERT INTO big VALUES (printf('%.*c', 10000000, 'x')),
                       ('_Z' || printf('%.*c', 10000000, 'P') || 'i'),
                       ('void f<' || printf('%.*c', 10000000, 'i') || '>(int)');
SELECT 'FAIL: 10 MB demangle' WHERE (SELECT count(*) FROM big WHERE demangle(name) IS NOT name) != 0;
SELECT 'FAIL: 10 MB short name' WHERE (SELECT count(*) FROM big WHERE kernel_short_name(name) IS NOT name) != 0;

-- Deep nesting just below the 64 KiB input cap: demangled on a big enough stack.
SELECT 'FAIL: 65000 nested pointers' WHERE (SELECT is_llvm FROM llvm)
  AND demangle('_Z1f' || printf('%.*c', 65000, 'P') || 'i') IS NOT 'f(int' || printf('%.*c', 65000, '*') || ')';
SELECT 'FAIL: 21000 nested function types' WHERE (SELECT is_llvm FROM llvm)
  AND substr(demangle('_Z1f' || replace(printf('%.*c', 21000, 'x'), 'x', 'PF') || 'v' || printf('%.*c', 21000, 'E')), 1, 15)
      IS NOT 'f(void (* (* (*';

-- rocpd_display_name on the same hostile inputs: never longer than 60 bytes, never a split UTF-8
-- character from a valid input, deterministic, the closure type readable.
SELECT 'FAIL: display of closure type' WHERE rocpd_display_name('_ZUlvE_') NOT LIKE '{lambda#1}%';
SELECT 'FAIL: display empty' WHERE rocpd_display_name('') IS NOT '';
SELECT 'FAIL: display 10 MB: ' || quote(substr(rocpd_display_name(name), 1, 70))
FROM big WHERE length(CAST(rocpd_display_name(name) AS BLOB)) > 60 OR rocpd_display_name(name) NOT LIKE '%~______';
SELECT 'FAIL: display deep nesting' WHERE length(CAST(rocpd_display_name('_Z1f' || printf('%.*c', 65000, 'P') || 'i') AS BLOB)) > 60;
SELECT 'FAIL: display NUL bytes' WHERE rocpd_display_name(CAST(x'5f5a33660076' AS TEXT)) IS NULL;
SELECT 'FAIL: display UTF-8 cut' WHERE hex(substr(CAST(rocpd_display_name(printf('%.*c', 52, 'a') || 'é' || printf('%.*c', 20, 'b')) AS BLOB), 53, 1)) != '7E';
SELECT 'FAIL: display unbalanced' WHERE rocpd_display_name('void f<' || printf('%.*c', 100, 'i') || '(int)') IS NULL;
