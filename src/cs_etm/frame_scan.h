// Which trace sources a block of CoreSight formatted trace can feed.
//
// Formatted trace (ETF/ETR sinks) is a sequence of 16-byte frames. In each
// frame, an even-numbered byte with bit 0 set switches the stream to the
// trace id in its upper seven bits; every other byte is data of the id
// switched to last (byte 15 holds the bits the even bytes gave up). After a
// decoder reset no id is current, so a source can only get data in a block
// whose frames switch to it. The scan lists those ids: a superset of the ids
// OpenCSD will emit packets for, which tells which blocks can be decoded
// independently of each other.
//
// Frame sync words (0x7fffffff) are allowed only in whole frames of them,
// frame-aligned, as perf's sinks insert them (OpenCSD resets on four of
// them); anything else that may shift the frame boundaries, or a block that
// is not whole frames, gives nullopt: any id may be fed.
#ifndef PERFTK_CS_ETM_FRAME_SCAN_H_
#define PERFTK_CS_ETM_FRAME_SCAN_H_

#include <bitset>
#include <optional>

#include "absl/functional/function_ref.h"
#include "base/bytes.h"

namespace perftk::cs_etm {

// A set of trace ids (packets carry an 8-bit trace id).
using TraceIdSet = std::bitset<256>;

std::optional<TraceIdSet> TraceIdsOfFrames(base::Bytes data);

// Calls `id_change` with the trace id of every id change in the whole
// frames of `data`, in order, frames of four sync words skipped; false when
// TraceIdsOfFrames gives nullopt (a frame with some sync words is read as
// any other, a frame cut short is not read).
bool ForEachIdChange(base::Bytes data, absl::FunctionRef<void(uint8_t id)> id_change);

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_FRAME_SCAN_H_
