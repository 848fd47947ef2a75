"""docs/names.md's rule for rocpd_duration_text, written out from the text (not from the C++): the
unit that keeps the figure short, commas between thousands, never a negative zero."""


def duration_text(ns):
    a = abs(ns)
    if a < 1e3:
        value, decimals, unit = ns, (0 if float(ns).is_integer() else 1), "ns"
    elif a < 1e6:
        value, decimals, unit = ns / 1e3, 2, "us"
    elif a < 1e9:
        value, decimals, unit = ns / 1e6, 2, "ms"
    else:
        value, decimals, unit = ns / 1e9, 3, "s"
    text = f"{abs(value):,.{decimals}f}"
    negative = value < 0 and any(c not in "0.," for c in text)
    return ("-" if negative else "") + text + " " + unit
