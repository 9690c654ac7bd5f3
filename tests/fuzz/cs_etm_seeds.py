#!/usr/bin/env python3
"""Writes seed inputs for the cs-etm fuzzers from the real simpleperf ETM
recordings (read in place, nothing is stored in the repository).

Usage: cs_etm_seeds.py ETM_DIR INFO_OUT_DIR DECODER_OUT_DIR

Info seeds: the private words of each recording's AUXTRACE_INFO.
Decoder seeds (see cs_etm_decoder_fuzzer.cc for the layout): mode byte,
code length / 4, etm_test_loop's text, then the recording's AUX trace; and
hand-made ETE streams into that text, one per packet that only ETE has
(docs/ete-in-opencsd.md, section 13, moved to the fuzzer's code address).
"""
import os
import struct
import sys

AUXTRACE_INFO, AUXTRACE = 70, 71


def records(blob):
    data_off, data_size = struct.unpack_from("<QQ", blob, 40)
    pos, end = data_off, data_off + data_size
    while pos + 8 <= end:
        rtype, _misc, size = struct.unpack_from("<IHH", blob, pos)
        if size < 8:
            return
        payload = b""
        if rtype == AUXTRACE:
            payload_size = struct.unpack_from("<Q", blob, pos + 8)[0]
            payload = blob[pos + size:pos + size + payload_size]
            yield rtype, blob[pos:pos + size], payload
            pos += size + payload_size
            continue
        yield rtype, blob[pos:pos + size], payload
        pos += size


# A-sync, trace info, trace on, and an address with context: kCodeBase
# (0x582b2b1000) at EL0, AArch64, non-secure, with a 4-byte VMID.
ETE_ASYNC = bytes(11) + b"\x80"
ETE_START = b"\x04\x85\x00\x08\x2b\x2b\x58\x00\x00\x00\x70\x3f\x01\x00\x00"
ETE_STREAMS = {
    "pe_reset": b"\x01\x00" + ETE_START + b"\xf7\x06\x00\x70\xf7\xf7" + ETE_ASYNC
    + b"\x01\x00" + ETE_START + b"\xf7",
    "ts_marker": b"\x01\x00" + ETE_START
    + b"\x02\xd7\xdf\x01\xf7\x88\x02\xd8\xdf\x01\xf7",
    "source_cancel": b"\x01\x00" + ETE_START + b"\xf7\xb4\x64\x2e\x01\x2d\x01\xf7\x2d\x02",
    "source_long": b"\x01\x00" + ETE_START
    + b"\xf7\xb9\x10\x08\x2b\x2b\x58\x00\x00\x00\xf7\xf6\xb4\x20\xf7",
    "transactions": b"\x01\x01\x40" + ETE_START + b"\xf7\x0a\xf7\x0b\xf7\x06\x31\x70"
    + b"\x95\x08\x08\xf7",
    "reserved": b"\x01\x00" + ETE_START + b"\xf7\x07\xf7\x09\xf7",
}
# mode bits: ETE, batch 1024, and with a speculation depth of 4, COMMTRANS,
# ETE 1.0
ETE_MODES = (0x0e, 0x1e, 0x3e, 0x4e)


def main():
    etm, info_dir, decoder_dir = sys.argv[1:4]
    os.makedirs(info_dir, exist_ok=True)
    os.makedirs(decoder_dir, exist_ok=True)
    with open(os.path.join(etm, "etm_test_loop"), "rb") as f:
        text = f.read()[0x1000:0x1000 + 4 * 255]
    # recording -> mode bits (formatted, ETE) of cs_etm_decoder_fuzzer.cc
    modes = {"perf_etm.data": 0x1, "perf_with_unformatted_trace.data": 0x2}
    for name, mode in modes.items():
        with open(os.path.join(etm, name), "rb") as f:
            blob = f.read()
        for rtype, record, payload in records(blob):
            if rtype == AUXTRACE_INFO:
                with open(os.path.join(info_dir, name + ".info"), "wb") as out:
                    out.write(record[16:])
            elif rtype == AUXTRACE:
                for batch in range(4):
                    seed = bytes([mode | batch << 2, len(text) // 4]) + text + payload
                    path = os.path.join(decoder_dir, "%s.%d.trace" % (name, batch))
                    with open(path, "wb") as out:
                        out.write(seed)
                    with open(path + ".nocode", "wb") as out:
                        out.write(bytes([mode | batch << 2, 0]) + payload)
    for name, stream in ETE_STREAMS.items():
        for mode in ETE_MODES:
            path = os.path.join(decoder_dir, "ete_%s.%02x.trace" % (name, mode))
            with open(path, "wb") as out:
                out.write(bytes([mode, len(text) // 4]) + text + ETE_ASYNC + stream)
    return 0


if __name__ == "__main__":
    sys.exit(main())
