-- rocpd_kernel_sequences: the kernel patterns each bottom-level range launches, most frequent
-- first (HTA's frequent CUDA kernel sequences, get_frequent_cuda_kernel_sequences). docs/diagnosis.md.
-- An occurrence is one range (a row of rocpd_ranges) that is the bottom_level of at least one op
-- of rocpd_kernel_stacks: the range enclosing the op's launch call that rocpd_kernel_stacks puts
-- innermost. Its pattern is the JSON array of the names of the ops (kernels and copies) whose
-- bottom-level range it is (not those of ranges nested in it), ordered by GPU start, then op_id.
--   db, operator   member, the range's name
--   kernels        ops in the pattern (HTA's min_pattern_len filters on it: WHERE kernels >= 3)
--   pattern        JSON array of op names
--   count          occurrences with this pattern
--   gpu_ns         sum of the ops' durations over the occurrences
--   range_ns       sum of the occurrences' range durations (HTA's CPU op duration)
-- Ordered per db (members in natural order) by count, then gpu_ns, descending.
-- The groups are computed per member on every core by the rocpd_sequence_groups table
-- (ext/diagnosis/rocpd_sequence_groups.cpp: the member's launch stacks, occurrences and patterns in
-- memory); a `db =` filter reads only that member. Ops whose launch call has no pid or tid have no
-- thread, so no occurrence.
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_sequences AS
SELECT db, operator, kernels, pattern, count, gpu_ns, range_ns
FROM temp.rocpd_sequence_groups
WHERE rocpd_require_members('rocpd_kernel_sequences')
ORDER BY db COLLATE rocpd_natural, count DESC, gpu_ns DESC, operator, pattern;
