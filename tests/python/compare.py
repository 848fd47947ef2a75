"""Row comparison of the recipes' answers with the views': integers and text exactly, reals to
1e-9 relative (the views and the merged states add the same values in other orders), medians
exactly while a group is small enough for exact states (docs/states.md) and within the sketch's
relative error beyond."""
import math

EXACT_STATE_VALUES = 4096  # docs/states.md: states keep the values themselves up to this count
SKETCH_RELATIVE_ERROR = 0.005


def close(a, b, rel=1e-9):
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is b
        return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=1e-9)
    return a == b


def same_rows(test, got, want, columns):
    test.assertEqual(len(got), len(want))
    med = columns.index("med_ns") if "med_ns" in columns else None
    count = columns.index("instances") if "instances" in columns else None
    for g, w in zip(got, want):
        test.assertEqual(len(g), len(w))
        for i, (a, b) in enumerate(zip(g, w)):
            if i == med and w[count] > EXACT_STATE_VALUES:
                test.assertLessEqual(abs(a - b), SKETCH_RELATIVE_ERROR * abs(b), (columns[i], g, w))
            else:
                test.assertTrue(close(a, b), (columns[i], a, b, g, w))
