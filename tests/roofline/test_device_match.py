"""rocpd_gpu_devices (docs/roofline.md, "Matching a device"): devices matched by the properties each
format records (rocpd_members.gpu_properties), not only by name. Hand-made Kineto deviceProperties,
a generated rocprofv3 file whose agents carry extdata, a generated Nsight Systems export with
TARGET_INFO_GPU's memoryBandwidth, and the real traces of ../shared/data. The expected devices come
from the vendors' part figures written out here (SMs/CUs per device, memory), not from the view."""
import glob
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "federation"))
from rocpd_testlib import GEN, SHARED_DATA, connect, main  # noqa: E402

GIB = 1 << 30
# (SMs or CUs per device, nominal memory GB) of the parts the cases below stand for.
MI250X_GCD, MI250_GCD, MI210 = (110, 64), (104, 64), (104, 64)
A100_40, A100_80 = (108, 40), (108, 80)
H100_SXM, H100_PCIE = (132, 80), (114, 80)


def amd(name, cu_mem, warp=64, major=9, minor=0):
    cu, mem = cu_mem
    return {"name": name, "numSms": cu, "totalGlobalMem": mem * GIB - 123 * (1 << 20), "computeMajor": major,
            "computeMinor": minor, "warpSize": warp}


def nv(name, sm_mem, major=8, minor=0):
    sm, mem = sm_mem
    # As devices report it: a little under the nominal size (an A100 40GB: 42505273344 bytes).
    return {"name": name, "numSms": sm, "totalGlobalMem": int(mem * 0.99 * GIB), "computeMajor": major,
            "computeMinor": minor, "warpSize": 32}


CASES = [  # (deviceProperties element, expected device or None, expected matched_by prefix, warning needle)
    (amd("AMD Radeon Graphics", MI250X_GCD), "AMD Instinct MI250X (one GCD)", "properties (110 compute units", None),
    (amd("AMD Radeon Graphics", MI250_GCD), None, None,
     "matches several devices by its properties: AMD Instinct MI210, AMD Instinct MI250 (one GCD)"),
    # The marketing name ROCm gives both MI250 variants: the name matches both, the CU count decides.
    (amd("AMD Instinct MI250X / MI250", MI250_GCD), "AMD Instinct MI250 (one GCD)", "name", None),
    (amd("AMD Instinct MI250X / MI250", MI250X_GCD), "AMD Instinct MI250X (one GCD)", "name", None),
    (nv("NVIDIA Graphics Device", A100_40), "NVIDIA A100 40GB", "properties (108 compute units, 40 GiB", None),
    (nv("NVIDIA Graphics Device", A100_80), None, None,
     "matches several devices by its properties: NVIDIA A100 80GB PCIe, NVIDIA A100 80GB SXM"),
    # A name claiming an SXM part with a PCIe part's SM count: the properties win, by themselves.
    (nv("NVIDIA H100 80GB HBM3", H100_PCIE, 9, 0), "NVIDIA H100 PCIe", "properties (114 compute units", None),
    (nv("NVIDIA H100 80GB HBM3", H100_SXM, 9, 0), "NVIDIA H100 SXM", "name", None),
    # An AMD name never matches an NVIDIA part with the same SM count, and the reverse.
    (amd("AMD Radeon Graphics", A100_40, warp=64, major=8), None, None, "no peaks for device 'AMD Radeon Graphics'"),
    # Nothing but a name, which no row knows: the old warning.
    ({"name": "NVIDIA Mystery X1"}, None, None, "no peaks for device 'NVIDIA Mystery X1'"),
]


def kineto(path, props):
    devices = [dict(p, id=i) for i, p in enumerate(props)]
    ev = [{"ph": "X", "cat": "cpu_op", "name": "aten::op", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {}}]
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "deviceProperties": devices, "traceEvents": ev}, f)


def devices(con):
    return {g: (n, d, by, w, src, mem) for g, n, d, by, w, src, mem in con.execute(
        "SELECT gpu, name, device, matched_by, warning, source, mem_tb_s FROM rocpd_gpu_devices")}


class KinetoProperties(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp()
        cls.path = os.path.join(cls.dir, "devices.json")
        kineto(cls.path, [c[0] for c in CASES])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def test_properties_recorded(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (self.path,))
        props = json.loads(con.execute("SELECT gpu_properties FROM rocpd_members").fetchone()[0])
        for i, (p, *_) in enumerate(CASES):
            want = {}
            if "numSms" in p:
                want = {"compute_units": p["numSms"], "memory_bytes": p["totalGlobalMem"], "warp_size": p["warpSize"],
                        "compute_capability": f"{p['computeMajor']}.{p['computeMinor']}"}
            self.assertEqual(props.get(str(i), {}), want, i)

    def test_matched(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (self.path,))
        got = devices(con)
        self.assertEqual(set(got), set(range(len(CASES))))
        for i, (p, device, by, needle) in enumerate(CASES):
            name, d, matched_by, warning, _, _ = got[i]
            self.assertEqual((name, d), (p["name"], device), i)
            if by is None:
                self.assertIsNone(matched_by, i)
            else:
                self.assertTrue(matched_by.startswith(by), (i, matched_by))
            if needle is None:
                self.assertIsNone(warning, i)
            else:
                self.assertIn(needle, warning, i)
                self.assertIn("rocpd_user_device_peaks", warning, i)

    def test_user_row_settles_an_ambiguity(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (self.path,))
        con.execute("INSERT INTO temp.rocpd_user_device_peaks(device, match, fp64_vector, mem_tb_s, source) "
                    "SELECT 'our MI250 die', '[\"amd radeon graphics\"]', fp64_vector, mem_tb_s, 'ours' "
                    "FROM rocpd_device_peaks_builtin WHERE device = 'AMD Instinct MI250 (one GCD)'")
        got = devices(con)
        # Every 'AMD Radeon Graphics' is the user's, whatever its properties: user rows are the user's word.
        for i, (p, *_) in enumerate(CASES):
            if p["name"] == "AMD Radeon Graphics":
                self.assertEqual(got[i][1:4], ("our MI250 die", "name", None), i)


def gen(directory, fmt, gpus=3):
    out = os.path.join(directory, fmt)
    subprocess.run([GEN, "--out", out, "--procs", "1", "--format", fmt, "--ops", "30", "--seed", "3", "--gpus", str(gpus)],
                   check=True, stdout=subprocess.DEVNULL)
    return [p for p in glob.glob(os.path.join(out, "*")) if not p.endswith(".json")][0]


class RocprofProperties(unittest.TestCase):
    def test_extdata_and_gfx_target(self):
        d = tempfile.mkdtemp()
        try:
            path = gen(d, "rocpd", gpus=4)
            db = sqlite3.connect(path)
            agents = db.execute("SELECT name FROM sqlite_master WHERE name LIKE 'rocpd_info_agent_%' AND type = 'table'")
            table = agents.fetchone()[0]
            # No product name: the gpu is named by its gfx target ('gfx90a'), which no pattern knows.
            # gpu 3: the PCI device id of an MI210 (rocprof-compute's chip id 29711 = 0x740f) settles 104 CUs.
            plant = {0: ("gfx90a:sramecc+:xnack-", 110, None), 1: ("gfx90a", 104, None), 2: ("gfx942", 304, None),
                     3: ("gfx90a", 104, 0x740F)}
            for gpu, (name, cu, pci) in plant.items():
                ext = {"cu_count": cu, "wave_front_size": 64, "max_engine_clk_fcompute": 1700, "local_mem_size": 0}
                if pci:
                    ext["device_id"] = pci
                db.execute(f"UPDATE {table} SET name = ?, product_name = '', extdata = ? WHERE type = 'GPU' AND "
                           "type_index = ?", (name, json.dumps(ext), gpu))
            db.commit()
            db.close()
            con = connect()
            con.execute("SELECT rocpd_open(?)", (path,))
            props = json.loads(con.execute("SELECT gpu_properties FROM rocpd_members").fetchone()[0])
            self.assertEqual(props["0"], {"arch": "gfx90a", "compute_units": 110, "warp_size": 64, "clock_mhz": 1700})
            got = devices(con)
            self.assertEqual(got[0][1:3], ("AMD Instinct MI250X (one GCD)", "properties (110 compute units, gfx90a)"))
            self.assertIsNone(got[1][1])
            self.assertIn("AMD Instinct MI210, AMD Instinct MI250 (one GCD)", got[1][3])
            self.assertEqual(got[2][1], "AMD Instinct MI300X")
            self.assertEqual(props["3"]["pci_device_id"], 29711)
            self.assertEqual(got[3][1:3], ("AMD Instinct MI210", "properties (104 compute units, gfx90a, device id 0x740f)"))
        finally:
            shutil.rmtree(d)


class NsysProperties(unittest.TestCase):
    def test_recorded_bandwidth_preferred(self):
        d = tempfile.mkdtemp()
        try:
            path = gen(d, "nsys")
            db = sqlite3.connect(path)
            db.execute("ALTER TABLE TARGET_INFO_GPU ADD COLUMN memoryBandwidth INTEGER")
            db.execute("ALTER TABLE TARGET_INFO_GPU ADD COLUMN clockRate INTEGER")
            # gpu 0: bytes/s and Hz as recorded; gpu 1: a figure out of any GPU's range (not bytes/s) is
            # left out; gpu 2: the SM count of the PCIe part under the SXM part's name.
            db.execute("UPDATE TARGET_INFO_GPU SET memoryBandwidth = 3352320000000, clockRate = 1980000000 WHERE id = 0")
            db.execute("UPDATE TARGET_INFO_GPU SET memoryBandwidth = 3352320000, clockRate = 1980000 WHERE id = 1")
            db.execute("UPDATE TARGET_INFO_GPU SET smCount = 114 WHERE id = 2")
            db.commit()
            db.close()
            con = connect()
            con.execute("SELECT rocpd_open(?)", (path,))
            props = json.loads(con.execute("SELECT gpu_properties FROM rocpd_members").fetchone()[0])
            self.assertEqual(props["0"], {"compute_units": 132, "memory_bytes": 85045559296, "mem_bytes_s": 3352320000000,
                                          "clock_mhz": 1980.0, "compute_capability": "9.0", "chip": "GH100"})
            self.assertNotIn("mem_bytes_s", props["1"])
            self.assertNotIn("clock_mhz", props["1"])
            got = devices(con)
            name, dev, by, warning, source, mem = got[0]
            self.assertEqual((dev, by, warning, mem), ("NVIDIA H100 SXM", "name", None, 3.35232))
            self.assertIn("TARGET_INFO_GPU.memoryBandwidth", source)
            self.assertIn("3.35 TB/s", source)
            self.assertEqual((got[1][1], got[1][5]), ("NVIDIA H100 SXM", 3.35))
            self.assertNotIn("memoryBandwidth", got[1][4])
            self.assertEqual(got[2][1:3], ("NVIDIA H100 PCIe", "properties (114 compute units, 79 GiB, capability 9.0, GH100)"))
        finally:
            shutil.rmtree(d)


@unittest.skipUnless(os.path.exists(os.path.join(SHARED_DATA, "kineto_mi250_rocm.json.gz")),
                     "../shared/data/kineto_mi250_rocm.json.gz is absent")
class RealTraces(unittest.TestCase):
    def raw(self, name):
        with gzip.open(os.path.join(SHARED_DATA, name)) as f:
            return {str(d["id"]): d for d in json.load(f)["deviceProperties"]}

    def test_mi250_dies_ambiguous(self):
        """ROCm's PyTorch names the dies 'AMD Radeon Graphics'; 104 CUs and 64 GiB fit an MI210 and one die of an
        MI250 alike: a warning naming both, no roof."""
        raw = self.raw("kineto_mi250_rocm.json.gz")
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(SHARED_DATA, "kineto_mi250_rocm.json.gz"),))
        got = devices(con)
        self.assertEqual({str(g) for g in got}, set(raw))
        for g, (name, dev, by, warning, _, _) in got.items():
            p = raw[str(g)]
            self.assertEqual((name, dev, by), (p["name"], None, None))
            self.assertEqual((p["numSms"], round(p["totalGlobalMem"] / GIB)), MI250_GCD)
            self.assertIn(f"({p['numSms']} compute units, 64 GiB, capability {p['computeMajor']}.{p['computeMinor']})",
                          warning)
            self.assertIn("AMD Instinct MI210, AMD Instinct MI250 (one GCD)", warning)

    @unittest.skipUnless(os.path.exists(os.path.join(SHARED_DATA, "kineto_counters.json.gz")),
                         "../shared/data/kineto_counters.json.gz is absent")
    def test_a100_name_and_properties_agree(self):
        raw = self.raw("kineto_counters.json.gz")
        con = connect()
        con.execute("SELECT rocpd_open(?)", (os.path.join(SHARED_DATA, "kineto_counters.json.gz"),))
        got = devices(con)
        self.assertEqual({str(g) for g in got}, set(raw))
        for g, (name, dev, by, warning, _, mem) in got.items():
            self.assertEqual((raw[str(g)]["numSms"], round(raw[str(g)]["totalGlobalMem"] / GIB)), A100_40)
            self.assertEqual((dev, by, warning, mem), ("NVIDIA A100 40GB", "name", None, 1.555))


if __name__ == "__main__":
    main()
