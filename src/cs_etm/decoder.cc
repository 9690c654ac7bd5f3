#include "cs_etm/decoder.h"

#include <opencsd/c_api/opencsd_c_api.h>
#include <opencsd/ete/trc_pkt_types_ete.h>
#include <opencsd/etmv3/trc_pkt_types_etmv3.h>
#include <opencsd/etmv4/trc_pkt_types_etmv4.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <span>

#include "absl/strings/str_format.h"
#include "base/sanitizers.h"
#include "cs_etm/frame_scan.h"
#include "cs_etm/opencsd_guard.h"

namespace perftk::cs_etm {
namespace {

// TRCIDR1.TRCARCHMIN >= 4 means an ETMv4.4+ with AArch64 features (perf's rule).
ocsd_arch_version_t EtmV4Arch(uint32_t trcidr1) {
  return ((trcidr1 >> 4) & 0xf) >= 4 ? ARCH_AA64 : ARCH_V8;
}

Isa IsaOf(ocsd_isa isa) {
  switch (isa) {
    case ocsd_isa_aarch64:
      return Isa::kA64;
    case ocsd_isa_arm:
      return Isa::kA32;
    case ocsd_isa_thumb2:
      return Isa::kT32;
    default:
      return Isa::kOther;
  }
}

// One datapath call, guarded: `fault` is the signal if OpenCSD crashed in it
// (opencsd_guard.h).
ocsd_datapath_resp_t Call(void* tree, ocsd_datapath_op_t op, uint64_t index, size_t size,
                          const uint8_t* data, uint32_t* consumed, int& fault) {
  ocsd_datapath_resp_t resp = OCSD_RESP_FATAL_SYS_ERR;
  fault = RunGuarded([&] {
    resp = ocsd_dt_process_data(static_cast<dcd_tree_handle_t>(tree), op, index,
                                static_cast<uint32_t>(size), data, consumed);
  });
  return resp;
}

constexpr size_t kFrameSize = 16;  // of formatted trace

// The source of formatted trace at frame boundaries: the trace id the last
// id change before it switched to (frame_scan.h), read on from the
// boundary asked last.
class FrameSources {
 public:
  // The id current at frame boundary `at`, at or after the last one asked;
  // nullopt before any switch.
  std::optional<uint8_t> At(std::span<const uint8_t> frames, size_t at) {
    ForEachIdChange(std::as_bytes(frames.subspan(scanned_, at - scanned_)), [this](uint8_t id) {
      if (id != 0x7f) current_ = id;  // 0xff: a sync byte, no id
    });
    scanned_ = at;
    return current_;
  }

 private:
  size_t scanned_ = 0;
  std::optional<uint8_t> current_;
};

// A frame that switches to trace id 0 (whose data every decoder drops),
// then, in its last even byte, to `id`: given to a deformatter that was
// reset, it makes the frames after it `id`'s, as they were before.
std::array<uint8_t, kFrameSize> SwitchTo(uint8_t id) {
  std::array<uint8_t, kFrameSize> frame{};
  frame[0] = 0x01;
  frame[14] = static_cast<uint8_t>(id << 1 | 1);
  return frame;
}

}  // namespace

struct TraceDecoder::Source {
  TraceSource config;
  uint8_t trace_id = 0;
  PidFormat pid_format = PidFormat::kNone;
  PacketContext context;
  uint64_t cs_timestamp = 0;
  uint64_t block_file_offset = 0;  // of the block being decoded, for messages
};

class TraceDecoder::Callbacks {
 public:
  static ocsd_datapath_resp_t Element(const void* p, const ocsd_trc_index_t index,
                                      const uint8_t trace_id,
                                      const ocsd_generic_trace_elem* element) {
    PerftkCallbackScope in_perftk;
    auto* self = const_cast<TraceDecoder*>(static_cast<const TraceDecoder*>(p));
    Source* source = self->FindSource(trace_id);
    if (source == nullptr) return OCSD_RESP_CONT;
    Packet packet;
    packet.trace_id = source->trace_id;
    switch (element->elem_type) {
      case OCSD_GEN_TRC_ELEM_PE_CONTEXT:
        if (!self->UpdateContext(*source, element->context)) return OCSD_RESP_CONT;
        packet.kind = PacketKind::kContext;
        break;
      case OCSD_GEN_TRC_ELEM_INSTR_RANGE:
        // Corrupt trace can make OpenCSD report a range that ends before it
        // starts, or holds more instructions than bytes / 2 (found by
        // cs_etm_decoder_fuzzer: 3e8 instructions from 284 bytes): no flow
        // goes through it.
        if (element->en_addr <= element->st_addr ||
            element->num_instr_range > (element->en_addr - element->st_addr) / 2) {
          ++self->decode_errors_;
          if (self->first_error_.empty()) {
            self->first_error_ = absl::StrFormat(
                "OpenCSD made an impossible range of %d instructions [%#x, %#x) at file offset "
                "%#x (trace byte %#x of the block) of cpu %d: taken as a break in the trace",
                element->num_instr_range, element->st_addr, element->en_addr,
                source->block_file_offset + index, index, source->config.cpu);
          }
          packet.kind = PacketKind::kDiscontinuity;
          break;
        }
        packet.kind = PacketKind::kRange;
        packet.isa = IsaOf(element->isa);
        packet.start = element->st_addr;
        packet.end = element->en_addr;
        packet.instr_count = element->num_instr_range;
        packet.last_size = static_cast<uint8_t>(element->last_instr_sz);
        packet.last_cond = element->last_instr_cond;
        packet.last_branch = element->last_i_type == OCSD_INSTR_BR ? BranchKind::kDirect
                             : element->last_i_type == OCSD_INSTR_BR_INDIRECT
                                 ? BranchKind::kIndirect
                                 : BranchKind::kNone;
        packet.last_taken = packet.last_branch != BranchKind::kNone && element->last_instr_exec;
        break;
      case OCSD_GEN_TRC_ELEM_NO_SYNC:
      case OCSD_GEN_TRC_ELEM_TRACE_ON:
      case OCSD_GEN_TRC_ELEM_EO_TRACE:
        packet.kind = PacketKind::kDiscontinuity;
        break;
      case OCSD_GEN_TRC_ELEM_EXCEPTION:
        packet.kind = PacketKind::kException;
        packet.exception_number = element->exception_number;
        break;
      case OCSD_GEN_TRC_ELEM_EXCEPTION_RET:
        packet.kind = PacketKind::kExceptionReturn;
        break;
      case OCSD_GEN_TRC_ELEM_ADDR_NACC:
        packet.kind = PacketKind::kNoAccess;
        packet.start = element->st_addr;
        ++self->no_access_;
        break;
      case OCSD_GEN_TRC_ELEM_TIMESTAMP:
        source->cs_timestamp = element->timestamp;
        return OCSD_RESP_CONT;
      default:
        return OCSD_RESP_CONT;
    }
    packet.context = source->context;
    if (packet.kind == PacketKind::kRange && element->context.el_valid) {
      packet.context.el = static_cast<int8_t>(element->context.exception_level);
    }
    packet.cs_timestamp = source->cs_timestamp;
    self->batch_.push_back(packet);
    if (self->batch_.size() < self->batch_size_) return OCSD_RESP_CONT;
    ++self->waits_;
    return OCSD_RESP_WAIT;
  }

  // After a crash in OpenCSD: the tree is left alone for good, the block's
  // rest is skipped and the crash counted as a decode error.
  static absl::Status Abandon(TraceDecoder& self, int signal, size_t pos, const TraceBlock& block,
                              PacketSink& sink) {
    AbandonTree(self.tree_);
    self.tree_ = nullptr;
    self.batch_.clear();
    ++self.decode_errors_;
    if (self.first_error_.empty()) {
      self.first_error_ = absl::StrFormat(
          "OpenCSD crashed (signal %d) near file offset %#x (trace byte %#x of the block) of cpu "
          "%d: the rest of the block is skipped",
          signal, block.file_offset + pos, pos, static_cast<int32_t>(block.cpu));
    }
    return sink.EndBlock();
  }

  static uint32_t Memory(const void* p, const ocsd_vaddr_t address,
                         const ocsd_mem_space_acc_t space, const uint8_t trace_id,
                         const uint32_t size, uint8_t* out) {
    (void)space;
    PerftkCallbackScope in_perftk;
    auto* self = const_cast<TraceDecoder*>(static_cast<const TraceDecoder*>(p));
    Source* source = self->FindSource(trace_id);
    PacketContext context = source != nullptr ? source->context : PacketContext{};
    if (context.el == kUnknownEl) context.el = address >= kKernelSpaceStart ? 1 : 0;
    return self->environment_.ReadCode(context, address, size, out);
  }
};

TraceDecoder::TraceDecoder(DecodeEnvironment& environment) : environment_(environment) {}

TraceDecoder::~TraceDecoder() {
  if (tree_ != nullptr) ocsd_destroy_dcd_tree(static_cast<dcd_tree_handle_t>(tree_));
}

TraceDecoder::Source* TraceDecoder::FindSource(uint8_t trace_id) {
  for (auto& source : sources_) {
    if (source->trace_id == trace_id) return source.get();
  }
  // A raw stream has one source whatever id the element carries.
  return sources_.size() == 1 ? sources_.front().get() : nullptr;
}

bool TraceDecoder::UpdateContext(Source& source, const ::_ocsd_pe_context& context) {
  PacketContext next = source.context;
  if (source.pid_format == PidFormat::kCtxtId && context.ctxt_id_valid) {
    next.tid = static_cast<int32_t>(context.context_id);
  } else if (source.pid_format == PidFormat::kCtxtId2 && context.vmid_valid) {
    next.tid = static_cast<int32_t>(context.vmid);
  }
  if (next.tid != source.context.tid) next.pid = environment_.PidOf(next.tid);
  if (context.el_valid) next.el = static_cast<int8_t>(context.exception_level);
  if (next == source.context) return false;
  source.context = next;
  return true;
}

uint8_t DecoderTraceId(const TraceSource& source, const std::map<uint32_t, uint8_t>& trace_ids) {
  auto id = trace_ids.find(source.cpu);
  return id != trace_ids.end() ? id->second : source.trace_id();
}

absl::StatusOr<std::unique_ptr<TraceDecoder>> TraceDecoder::Create(
    const CsEtmInfo& info, const std::map<uint32_t, uint8_t>& trace_ids, bool formatted,
    uint32_t raw_cpu, DecodeEnvironment& environment, size_t batch_size) {
  std::unique_ptr<TraceDecoder> decoder(new TraceDecoder(environment));
  decoder->batch_size_ = std::max<size_t>(batch_size, 1);
  uint32_t flags = formatted ? (OCSD_DFRMTR_FRAME_MEM_ALIGN | OCSD_DFRMTR_RESET_ON_4X_FSYNC) : 0;
  dcd_tree_handle_t tree =
      ocsd_create_dcd_tree(formatted ? OCSD_TRC_SRC_FRAME_FORMATTED : OCSD_TRC_SRC_SINGLE, flags);
  if (tree == C_API_INVALID_TREE_HANDLE) {
    return absl::InternalError("OpenCSD could not create a decode tree");
  }
  decoder->tree_ = tree;
  decoder->formatted_ = formatted;
  for (const TraceSource& source : info.sources) {
    if (!formatted && source.cpu != raw_cpu) continue;
    if (absl::Status s = decoder->AddSource(source, DecoderTraceId(source, trace_ids)); !s.ok()) {
      return s;
    }
  }
  if (decoder->sources_.empty()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "no trace source metadata for cpu %d in AUXTRACE_INFO", static_cast<int32_t>(raw_cpu)));
  }
  decoder->guard_ = std::make_unique<WaitingElementsGuard>(info, trace_ids, formatted, raw_cpu);
  if (ocsd_dt_set_gen_elem_outfn(tree, &Callbacks::Element, decoder.get()) != OCSD_OK ||
      ocsd_dt_add_callback_trcid_mem_acc(tree, 0, ~0ULL, OCSD_MEM_SPACE_ANY, &Callbacks::Memory,
                                         decoder.get()) != OCSD_OK) {
    return absl::InternalError("OpenCSD refused the element or memory callback");
  }
  return decoder;
}

absl::Status TraceDecoder::AddSource(const TraceSource& source, uint8_t trace_id) {
  auto tree = static_cast<dcd_tree_handle_t>(tree_);
  unsigned char csid = 0;
  ocsd_err_t err = OCSD_OK;
  switch (source.protocol) {
    case TraceProtocol::kEtmV4: {
      ocsd_etmv4_cfg cfg{};
      cfg.reg_idr0 = source.trcidr0;
      cfg.reg_idr1 = source.trcidr1;
      cfg.reg_idr2 = source.trcidr2;
      cfg.reg_idr8 = source.trcidr8;
      cfg.reg_configr = source.trcconfigr;
      cfg.reg_traceidr = trace_id;
      cfg.arch_ver = EtmV4Arch(source.trcidr1);
      cfg.core_prof = profile_CortexA;
      err = ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_FULL_DECODER,
                                   &cfg, &csid);
      break;
    }
    case TraceProtocol::kEte: {
      ocsd_ete_cfg cfg{};
      cfg.reg_idr0 = source.trcidr0;
      cfg.reg_idr1 = source.trcidr1;
      cfg.reg_idr2 = source.trcidr2;
      cfg.reg_idr8 = source.trcidr8;
      cfg.reg_devarch = source.trcdevarch;
      cfg.reg_configr = source.trcconfigr;
      cfg.reg_traceidr = trace_id;
      cfg.arch_ver = ARCH_AA64;
      cfg.core_prof = profile_CortexA;
      err = ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETE, OCSD_CREATE_FLG_FULL_DECODER, &cfg,
                                   &csid);
      break;
    }
    case TraceProtocol::kEtmV3:
    case TraceProtocol::kPtm: {
      ocsd_etmv3_cfg cfg{};
      cfg.reg_idr = source.etmidr;
      cfg.reg_ctrl = source.etmcr;
      cfg.reg_ccer = source.etmccer;
      cfg.reg_trc_id = trace_id;
      cfg.arch_ver = ARCH_V7;
      cfg.core_prof = profile_CortexA;
      err = ocsd_dt_create_decoder(
          tree,
          source.protocol == TraceProtocol::kPtm ? OCSD_BUILTIN_DCD_PTM : OCSD_BUILTIN_DCD_ETMV3,
          OCSD_CREATE_FLG_FULL_DECODER, &cfg, &csid);
      break;
    }
  }
  if (err != OCSD_OK) {
    char text[256];
    ocsd_err_str(err, text, sizeof(text));
    return absl::InvalidArgumentError(
        absl::StrFormat("OpenCSD could not create the decoder of cpu %d (trace id %#x): %s",
                        source.cpu, trace_id, text));
  }
  auto entry = std::make_unique<Source>();
  entry->config = source;
  entry->trace_id = trace_id;
  entry->pid_format = source.pid_format();
  sources_.push_back(std::move(entry));
  return absl::OkStatus();
}

absl::Status TraceDecoder::Drain(PacketSink& sink) {
  if (batch_.empty()) return absl::OkStatus();
  absl::Status status = sink.Consume(batch_);
  batch_.clear();
  return status;
}

absl::Status TraceDecoder::Check(int response, uint64_t index, const TraceBlock& block,
                                 const char* op) {
  auto resp = static_cast<ocsd_datapath_resp_t>(response);
  if (!OCSD_DATA_RESP_IS_FATAL(resp) && resp != OCSD_RESP_ERR_CONT && resp != OCSD_RESP_ERR_WAIT) {
    return absl::OkStatus();
  }
  char message[256] = {0};
  ocsd_trc_index_t err_index = 0;
  uint8_t chan = 0;
  ocsd_get_last_err(&err_index, &chan, message, sizeof(message));
  if (message[0] == '\0') {  // OpenCSD's error log is quiet (opencsd_guard.h)
    std::snprintf(message, sizeof(message), "%s",
                  OCSD_DATA_RESP_IS_FATAL(resp) ? "fatal error in the trace data"
                                                : "bad or unsynchronized trace data");
  }
  std::string text = absl::StrFormat(
      "OpenCSD %s at file offset %#x (trace byte %#x of the block) of cpu %d: %s", op,
      block.file_offset + index, index, static_cast<int32_t>(block.cpu), message);
  if (OCSD_DATA_RESP_IS_FATAL(resp)) return absl::DataLossError(text);
  ++decode_errors_;
  if (first_error_.empty()) first_error_ = text;
  return absl::OkStatus();
}

absl::Status TraceDecoder::EndTrace(int response, size_t pos, const TraceBlock& block,
                                    PacketSink& sink) {
  auto resp = static_cast<ocsd_datapath_resp_t>(response);
  int fault = 0;
  // Finish what a WAIT left pending, then signal the end of the trace.
  for (int op = 0; op < 2; ++op) {
    while (OCSD_DATA_RESP_IS_WAIT(resp)) {
      uint32_t consumed = 0;
      resp = Call(tree_, OCSD_OP_FLUSH, 0, 0, nullptr, &consumed, fault);
      if (fault != 0) return Callbacks::Abandon(*this, fault, pos, block, sink);
      if (absl::Status s = Check(resp, pos, block, "flush"); !s.ok()) return s;
      if (absl::Status s = Drain(sink); !s.ok()) return s;
    }
    if (op == 0) {
      uint32_t consumed = 0;
      resp = Call(tree_, OCSD_OP_EOT, 0, 0, nullptr, &consumed, fault);
      if (fault != 0) return Callbacks::Abandon(*this, fault, pos, block, sink);
      if (absl::Status s = Check(resp, pos, block, "end of trace"); !s.ok()) return s;
      if (absl::Status s = Drain(sink); !s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

absl::Status TraceDecoder::Decode(const TraceBlock& block, PacketSink& sink) {
  if (tree_ == nullptr) {
    return absl::FailedPreconditionError("this decoder was abandoned after an OpenCSD crash");
  }
  void* tree = tree_;
  int fault = 0;
  const uint8_t* data = reinterpret_cast<const uint8_t*>(block.data.data());
  const size_t size = block.data.size();
  if (auto refusal = guard_->Check({data, size})) {
    ++decode_errors_;
    if (first_error_.empty()) {
      first_error_ = absl::StrFormat(
          "trace at file offset %#x (trace byte %#x of the block) of cpu %d: %s; the block "
          "(%d bytes) is not decoded",
          block.file_offset + refusal->index, refusal->index, static_cast<int32_t>(block.cpu),
          refusal->why, size);
    }
    return sink.EndBlock();
  }
  std::optional<OpenCsdBlockScope> block_scope(std::in_place);
  for (auto& source : sources_) {
    source->context = PacketContext{};
    source->cs_timestamp = 0;
    source->block_file_offset = block.file_offset;
    if (block.seed_tid >= 0) {
      source->context.tid = block.seed_tid;
      source->context.pid =
          block.seed_pid >= 0 ? block.seed_pid : environment_.PidOf(block.seed_tid);
    } else if (block.cpu == kNoCpu && block.tid != 0) {
      source->context.tid = static_cast<int32_t>(block.tid);
      source->context.pid = environment_.PidOf(source->context.tid);
    }
  }
  batch_.clear();
  uint32_t ignored = 0;
  ocsd_datapath_resp_t resp = Call(tree, OCSD_OP_RESET, 0, 0, nullptr, &ignored, fault);
  if (fault != 0) return Callbacks::Abandon(*this, fault, 0, block, sink);
  if (absl::Status s = Check(resp, 0, block, "reset"); !s.ok()) return s;
  size_t pos = 0;
  // Where the trace is to be ended, once OpenCSD holds too much (the next
  // frame boundary of formatted trace): kNoCut until then, kNever when no
  // frame is left.
  constexpr size_t kNoCut = SIZE_MAX, kNever = SIZE_MAX - 1;
  size_t cut = kNoCut;
  size_t last_end = 0;   // where the trace was last ended (end_every_piece_)
  FrameSources sources;  // formatted
  resp = OCSD_RESP_CONT;
  while (pos < size) {
    uint32_t consumed = 0;
    if (OCSD_DATA_RESP_IS_WAIT(resp)) {
      resp = Call(tree, OCSD_OP_FLUSH, 0, 0, nullptr, &consumed, fault);
      if (fault != 0) return Callbacks::Abandon(*this, fault, pos, block, sink);
      if (absl::Status s = Check(resp, pos, block, "flush"); !s.ok()) return s;
    } else {
      const size_t piece = std::min({size - pos, piece_, cut > pos ? cut - pos : size});
      resp = Call(tree, OCSD_OP_DATA, pos, piece, data + pos, &consumed, fault);
      if (fault != 0) return Callbacks::Abandon(*this, fault, pos, block, sink);
      if (absl::Status s = Check(resp, pos, block, "decode"); !s.ok()) return s;
      pos += consumed;
      if (consumed == 0 && !OCSD_DATA_RESP_IS_WAIT(resp)) {
        return absl::DataLossError(
            absl::StrFormat("OpenCSD made no progress at file offset %#x of cpu %d",
                            block.file_offset + pos, static_cast<int32_t>(block.cpu)));
      }
    }
    if (absl::Status s = Drain(sink); !s.ok()) return s;
    if (pos == size || OCSD_DATA_RESP_IS_WAIT(resp) || cut == kNever) continue;
    if (cut == kNoCut) {
      const bool end =
          end_every_piece_ ? pos - last_end >= piece_ : HeldByGuard() > max_held_deletes_;
      if (!end) continue;
      cut = formatted_ ? (pos + kFrameSize - 1) / kFrameSize * kFrameSize : pos;
      if (cut >= size) cut = kNever;
    }
    if (pos != cut) continue;
    cut = kNoCut;
    // What OpenCSD deleted is freed only where its trace ends (at a block's
    // end, here): end it, free, and start again from the next sync point.
    // (A crash in ending it abandons the tree and ends the block.)
    if (absl::Status s = EndTrace(resp, pos, block, sink); !s.ok() || tree_ == nullptr) return s;
    block_scope.reset();
    block_scope.emplace();
    last_end = pos;
    ++decode_errors_;
    if (first_error_.empty()) {
      const std::string why =
          end_every_piece_
              ? absl::StrFormat("was asked to end its trace every %d bytes", piece_)
              : absl::StrFormat("made OpenCSD hold more than %d freed objects", max_held_deletes_);
      first_error_ = absl::StrFormat(
          "OpenCSD decode at file offset %#x (trace byte %#x of the block) of cpu %d: the block "
          "(%d bytes) %s, so its trace was ended there and decoded again from the next sync point",
          block.file_offset + pos, pos, static_cast<int32_t>(block.cpu), size, why);
    }
    resp = Call(tree, OCSD_OP_RESET, pos, 0, nullptr, &ignored, fault);
    if (fault != 0) return Callbacks::Abandon(*this, fault, pos, block, sink);
    if (absl::Status s = Check(resp, pos, block, "reset"); !s.ok()) return s;
    // A frame names its source only when the source changes: say it again.
    if (formatted_) {
      if (const std::optional<uint8_t> id = sources.At({data, size}, pos)) {
        const std::array<uint8_t, kFrameSize> frame = SwitchTo(*id);
        uint32_t consumed = 0;
        resp = Call(tree, OCSD_OP_DATA, pos - kFrameSize, frame.size(), frame.data(), &consumed,
                    fault);
        if (fault != 0) return Callbacks::Abandon(*this, fault, pos, block, sink);
        if (absl::Status s = Check(resp, pos, block, "decode"); !s.ok()) return s;
      }
    }
  }
  if (absl::Status s = EndTrace(resp, pos, block, sink); !s.ok() || tree_ == nullptr) return s;
  return sink.EndBlock();
}

}  // namespace perftk::cs_etm

#if PERFTK_ASAN
// OpenCSD 1.3.3's C API never frees the callback object that
// ocsd_dt_set_gen_elem_outfn allocates (32 bytes per decode tree, also
// after ocsd_destroy_dcd_tree). Keep LeakSanitizer quiet about that one leak.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:ocsd_dt_set_gen_elem_outfn\n"
         // ETMv4 decoder: P0 stack address elements dropped on bad trace
         // (found by tests/fuzz/cs_etm_decoder_fuzzer.cc; library bug).
         "leak:EtmV4P0Stack::createAddrElem\n";
}
// OpenCSD 1.3.3's ETMv4/ETE decoder also reads its P0 stack after erasing
// from it on corrupt trace (heap-use-after-free, seen by ASan only where the
// library calls an intercepted function such as memmove; found by
// cs_etm_decoder_fuzzer). The library is not instrumented anyway: do not
// report what its calls into the interceptors do.
extern "C" const char* __asan_default_suppressions() {
  return "interceptor_via_lib:libopencsd.so\n";
}
#endif
