#!/usr/bin/env python3
"""Writes seed inputs for the cs-etm fuzzers from the real simpleperf ETM
recordings (read in place, nothing is stored in the repository).

Usage: cs_etm_seeds.py ETM_DIR INFO_OUT_DIR DECODER_OUT_DIR

Info seeds: the private words of each recording's AUXTRACE_INFO.
Decoder seeds (see cs_etm_decoder_fuzzer.cc for the layout): mode byte,
code length / 4, etm_test_loop's text, then the recording's AUX trace.
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
