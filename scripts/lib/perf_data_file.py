"""The layout of a little-endian file-layout perf.data, for scripts that make
bigger recordings from real ones (benchmark and test input).

    recording = PerfDataFile.read(path)
    recording.write(path, new_data)   # same header, attrs and features
    cpus, aux, trace = recording.etm_trace()   # a CoreSight recording's

The data section is replaced by `new_data`; the feature sections, id arrays
and attrs stored after it move by the difference in size.
"""
import struct
import sys

AUX, AUXTRACE_INFO, AUXTRACE = 11, 70, 71


class PerfDataFile:
    def __init__(self, path, blob):
        magic, size, self.attr_size = struct.unpack_from("<8sQQ", blob, 0)
        if magic != b"PERFILE2" or size != 104:
            sys.exit(f"{path}: not a little-endian file-layout perf.data")
        self.attrs_off, self.attrs_size, self.data_off, self.data_size = struct.unpack_from(
            "<4Q", blob, 24)
        self.path = path
        self.blob = blob
        features = struct.unpack_from("<4Q", blob, 72)
        self.nr_features = sum(bin(word).count("1") for word in features)

    @classmethod
    def read(cls, path):
        with open(path, "rb") as f:
            return cls(path, f.read())

    def etm_trace(self):
        """A CoreSight recording's CPUs with trace metadata (AUXTRACE_INFO),
        its last AUX record, and its last AUXTRACE record with the trace
        after it, as (cpus, aux, (auxtrace, trace)); exits when one is
        missing."""
        cpus, aux, trace = [], None, None
        blob = self.blob
        pos, end = self.data_off, self.data_off + self.data_size
        while pos + 8 <= end:
            rtype, _misc, rsize = struct.unpack_from("<IHH", blob, pos)
            record = blob[pos:pos + rsize]
            if rtype == AUXTRACE_INFO:
                # header words: version, nr_cpu | pmu_type << 32, snapshot;
                # then per CPU: magic, cpu, nr_params, params...
                words = struct.unpack_from("<%dQ" % ((rsize - 16) // 8), record, 16)
                at = 3
                for _ in range(words[1] & 0xffffffff):
                    cpus.append(words[at + 1])
                    at += 3 + words[at + 2]
            elif rtype == AUX:
                aux = record
            elif rtype == AUXTRACE:
                payload_size = struct.unpack_from("<Q", record, 8)[0]
                trace = (record, blob[pos + rsize:pos + rsize + payload_size])
                pos += payload_size
            pos += rsize
        if not cpus or aux is None or trace is None:
            sys.exit(f"{self.path}: no AUXTRACE_INFO, AUX or AUXTRACE record")
        return cpus, aux, trace

    @property
    def data(self):
        return self.blob[self.data_off:self.data_off + self.data_size]

    def write(self, path, new_data):
        blob, table_off = self.blob, self.data_off + self.data_size
        grow = len(new_data) - self.data_size
        moved = lambda off: off + grow if off >= table_off else off
        out = bytearray(blob[:self.data_off]) + new_data
        # The feature table follows the data; every section past it moves.
        for i in range(self.nr_features):
            off, size = struct.unpack_from("<QQ", blob, table_off + 16 * i)
            out += struct.pack("<QQ", moved(off), size)
        out += blob[table_off + 16 * self.nr_features:]
        struct.pack_into("<Q", out, 48, len(new_data))
        struct.pack_into("<Q", out, 24, moved(self.attrs_off))
        # Each attr ends with its id array's offset and size.
        for i in range(self.attrs_size // self.attr_size):
            at = moved(self.attrs_off) + (i + 1) * self.attr_size - 16
            struct.pack_into("<Q", out, at, moved(struct.unpack_from("<Q", out, at)[0]))
        with open(path, "wb") as f:
            f.write(out)
