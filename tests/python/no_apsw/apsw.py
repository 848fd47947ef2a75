"""Stands in for a Python without APSW: put this directory first on PYTHONPATH."""
raise ImportError("No module named 'apsw' (simulated by tests/python/no_apsw)")
