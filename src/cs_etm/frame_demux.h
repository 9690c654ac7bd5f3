// CoreSight formatted trace taken apart into the byte runs of each trace
// id, as OpenCSD 1.3.3's frame deformatter hands them to its packet
// processors when configured as perftk configures it (frames 16-byte
// aligned in memory, four frame syncs reset the decoders).
//
// Part of the fast decoder (issue 29). A frame is 16 bytes: in each of the
// pairs at bytes 0-13, an even byte with bit 0 set switches to the trace id
// in its upper bits and its odd byte belongs to the new id or, when the
// frame's flag bit for the pair (byte 15) is set, still to the old one; an
// even byte with bit 0 clear is data whose bit 0 is the flag bit. Byte 14
// is an id or one byte of data. Within a frame, each stretch of one id is a
// run; the runs are given in order, each with OpenCSD's index (the frame's
// offset, plus the pair's for a run that starts at an id change). Data
// before the first id of the block has no id and is dropped. The id stays
// current from frame to frame.
//
// Frame syncs (the word 0x7fffffff) between frames are skipped; a multiple
// of four of them resets the decoders. Where OpenCSD would read past the
// block (a frame cut short after a count of syncs that is not a multiple of
// four) or refuse it (a size that is not whole frames), Demux does nothing
// and says so: that block is for the OpenCSD path. (Syncs that end a block
// make OpenCSD look at the bytes after it for more; perftk takes those as
// not syncs.)
#ifndef PERFTK_CS_ETM_FRAME_DEMUX_H_
#define PERFTK_CS_ETM_FRAME_DEMUX_H_

#include <cstdint>
#include <span>

#include "absl/functional/function_ref.h"

namespace perftk::cs_etm {

struct FrameRun {
  uint8_t trace_id = 0;
  uint64_t index = 0;              // OpenCSD's index of the run's first byte
  std::span<const uint8_t> bytes;  // valid during the call only
};

class FrameDemuxSink {
 public:
  virtual ~FrameDemuxSink() = default;
  virtual void Run(const FrameRun& run) = 0;
  // Four (or a multiple of four) frame syncs at `index`: decoders reset.
  virtual void Reset(uint64_t index) = 0;
};

// Whether `block` is whole frames with no frame sync OpenCSD would
// mishandle.
bool CanDemux(std::span<const uint8_t> block);

// Hands every run of `block` (formatted trace, after a decoder reset) to
// `sink`, in order. False, with nothing handed over, when !CanDemux(block).
bool Demux(std::span<const uint8_t> block, FrameDemuxSink& sink);

// As Demux, for any block: the runs of its whole frames, up to a frame cut
// short if there is one (the most OpenCSD decodes of a block Demux
// refuses).
void DemuxWholeFrames(std::span<const uint8_t> block, FrameDemuxSink& sink);

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_FRAME_DEMUX_H_
