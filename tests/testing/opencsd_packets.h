// OpenCSD's own ETMv4/ETE packet processor on a byte stream: the oracle of
// cs_etm/etm4_packets.h. Its packets come back as Etm4Packet, and Describe
// prints the fields a packet of each type carries, so that two packet
// streams compare as text and a difference reads as one.
#ifndef PERFTK_TESTS_TESTING_OPENCSD_PACKETS_H_
#define PERFTK_TESTS_TESTING_OPENCSD_PACKETS_H_

#include <opencsd/c_api/opencsd_c_api.h>
#include <opencsd/ete/trc_pkt_types_ete.h>
#include <opencsd/etmv4/trc_pkt_types_etmv4.h>

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "cs_etm/etm4_packets.h"
#include "cs_etm/metadata.h"

namespace perftk::cs_etm::opencsd_oracle {

inline Etm4Packet FromOpenCsd(const ocsd_etmv4_i_pkt& p, uint64_t index) {
  Etm4Packet packet;
  packet.type = static_cast<Etm4PacketType>(p.type);
  packet.error_of = static_cast<Etm4PacketType>(p.err_type);
  packet.index = index;
  packet.address = p.v_addr.val;
  packet.isa = p.v_addr_ISA;
  packet.match_index = p.addr_exact_match_idx;
  packet.atom_bits = p.atom.En_bits;
  packet.atom_count = p.atom.num;
  packet.context.updated = p.context.updated;
  packet.context.el = static_cast<uint8_t>(p.context.EL);
  packet.context.sixty_four_bit = p.context.SF;
  packet.context.non_secure = p.context.NS;
  packet.context.nse = p.context.NSE;
  packet.context.context_id_updated = p.context.updated_c;
  packet.context.vmid_updated = p.context.updated_v;
  packet.context.context_id = p.context.ctxtID;
  packet.context.vmid = p.context.VMID;
  packet.timestamp = p.ts.timestamp;
  packet.has_cycle_count = p.pkt_valid.bits.cc_valid;
  packet.cycle_count = p.cycle_count;
  packet.has_commit = p.pkt_valid.bits.commit_elem_valid;
  packet.commit = p.commit_elements;
  packet.cancel = p.cancel_elements;
  packet.exception_type = static_cast<uint16_t>(p.exception_info.exceptionType);
  packet.address_interpretation = static_cast<uint8_t>(p.exception_info.addr_interp);
  packet.trace_info = p.trace_info.val;
  packet.cc_threshold = p.pkt_valid.bits.cc_thresh_valid ? p.cc_threshold : 0;
  packet.p0_key = p.pkt_valid.bits.p0_key_valid ? p.p0_key : 0;
  packet.spec_depth = p.pkt_valid.bits.spec_depth_valid ? p.curr_spec_depth : 0;
  packet.q_count = p.Q_pkt.q_count;
  packet.q_type = static_cast<uint8_t>(p.Q_pkt.q_type);
  packet.event = p.event_val;
  return packet;
}

// The fields packets of `packet.type` carry, as one line.
inline std::string Describe(const Etm4Packet& packet) {
  using T = Etm4PacketType;
  std::string text = absl::StrFormat("@%d type %#x", packet.index, static_cast<int>(packet.type));
  auto address = [&] {
    absl::StrAppendFormat(&text, " addr %#x is%d", packet.address, packet.isa);
  };
  auto atoms = [&] {
    const uint32_t mask = packet.atom_count >= 32 ? ~0u : (1u << packet.atom_count) - 1;
    absl::StrAppendFormat(&text, " atoms %d:%#x", packet.atom_count, packet.atom_bits & mask);
  };
  auto context = [&] {
    const Etm4Context& c = packet.context;
    absl::StrAppendFormat(&text, " ctxt updated %d", c.updated);
    if (c.updated) {
      absl::StrAppendFormat(&text, " el %d sf %d ns %d nse %d", c.el, c.sixty_four_bit,
                            c.non_secure, c.nse);
    }
    if (c.context_id_updated) absl::StrAppendFormat(&text, " cid %#x", c.context_id);
    if (c.vmid_updated) absl::StrAppendFormat(&text, " vmid %#x", c.vmid);
  };
  switch (packet.type) {
    case T::kIncompleteEot:
    case T::kBadSequence:
    case T::kReserved:
    case T::kReservedForConfig:
      absl::StrAppendFormat(&text, " of %#x", static_cast<int>(packet.error_of));
      break;
    case T::kAtomF1:
    case T::kAtomF2:
    case T::kAtomF3:
    case T::kAtomF4:
    case T::kAtomF5:
    case T::kAtomF6:
      atoms();
      break;
    case T::kMispredict:
    case T::kCancelF2:
    case T::kCancelF3:
    case T::kCancelF1:
    case T::kCancelF1Mispredict:
      atoms();
      absl::StrAppendFormat(&text, " cancel %d", packet.cancel);
      break;
    case T::kCommit:
      absl::StrAppendFormat(&text, " commit %d", packet.commit);
      break;
    case T::kCycleCountF1:
    case T::kCycleCountF2:
    case T::kCycleCountF3:
      absl::StrAppendFormat(&text, " cc %d", packet.cycle_count);
      if (packet.has_commit) absl::StrAppendFormat(&text, " commit %d", packet.commit);
      break;
    case T::kAddressMatch:
    case T::kSourceAddressMatch:
      absl::StrAppendFormat(&text, " match %d", packet.match_index);
      address();
      break;
    case T::kShortAddressIs0:
    case T::kShortAddressIs1:
    case T::kLongAddress32Is0:
    case T::kLongAddress32Is1:
    case T::kLongAddress64Is0:
    case T::kLongAddress64Is1:
    case T::kSourceShortAddressIs0:
    case T::kSourceShortAddressIs1:
    case T::kSourceLongAddress32Is0:
    case T::kSourceLongAddress32Is1:
    case T::kSourceLongAddress64Is0:
    case T::kSourceLongAddress64Is1:
    case T::kPeReset:
    case T::kTransactionFail:
      address();
      break;
    case T::kAddressContext32Is0:
    case T::kAddressContext32Is1:
    case T::kAddressContext64Is0:
    case T::kAddressContext64Is1:
      address();
      context();
      break;
    case T::kContext:
      context();
      break;
    case T::kTimestamp:
      absl::StrAppendFormat(&text, " ts %#x", packet.timestamp);
      if (packet.has_cycle_count) absl::StrAppendFormat(&text, " cc %d", packet.cycle_count);
      break;
    case T::kException:
      absl::StrAppendFormat(&text, " exception %#x interp %d", packet.exception_type,
                            packet.address_interpretation);
      break;
    case T::kTraceInfo:
      absl::StrAppendFormat(&text, " info %#x threshold %d key %d spec %d", packet.trace_info,
                            packet.cc_threshold, packet.p0_key, packet.spec_depth);
      break;
    case T::kQ:
      absl::StrAppendFormat(&text, " q %#x", packet.q_type);
      if (packet.q_type != 0xf) absl::StrAppendFormat(&text, " count %d", packet.q_count);
      if (packet.q_type <= 0x2 || packet.q_type == 0x5 || packet.q_type == 0x6 ||
          packet.q_type == 0xa || packet.q_type == 0xb) {
        address();
      }
      break;
    case T::kEvent:
      absl::StrAppendFormat(&text, " event %d", packet.event);
      break;
    default:
      break;
  }
  return text;
}

inline std::vector<std::string> Describe(const std::vector<Etm4Packet>& packets) {
  std::vector<std::string> lines;
  lines.reserve(packets.size());
  for (const Etm4Packet& packet : packets) lines.push_back(Describe(packet));
  return lines;
}

// OpenCSD leaves its address history uninitialized until the first trace
// info packet (the decoder ignores everything before one), and its context
// until the first context packet; a 32-bit address packet keeps the high
// bits when that context says AArch64. Addresses that depend on what is not
// yet known are not compared.
inline std::vector<std::string> Comparable(std::vector<Etm4Packet> packets) {
  using T = Etm4PacketType;
  // Whether each of the last three addresses is known, newest first.
  std::array<bool, 3> known = {false, false, false};
  auto push = [&](bool value) { known = {value, known[0], known[1]}; };
  bool context_known = false;
  bool sixty_four_bit = false;  // of the known context
  for (Etm4Packet& packet : packets) {
    const T type = packet.type;
    const bool long64 = type == T::kLongAddress64Is0 || type == T::kLongAddress64Is1 ||
                        type == T::kAddressContext64Is0 || type == T::kAddressContext64Is1;
    const bool long32 = type == T::kLongAddress32Is0 || type == T::kLongAddress32Is1 ||
                        type == T::kAddressContext32Is0 || type == T::kAddressContext32Is1 ||
                        (type == T::kQ && (packet.q_type == 0xa || packet.q_type == 0xb));
    const bool short_form = type == T::kShortAddressIs0 || type == T::kShortAddressIs1 ||
                            (type == T::kQ && (packet.q_type == 0x5 || packet.q_type == 0x6));
    const bool match = type == T::kAddressMatch || (type == T::kQ && packet.q_type <= 0x2);
    if (type == T::kTraceInfo) known = {true, true, true};
    if (long64) push(true);
    // With an AArch64 context the high bits stay: known if they were.
    if (long32) push(context_known && (!sixty_four_bit || known[0]));
    if (short_form) push(known[0]);
    if (match) push(packet.match_index < 3 ? known[packet.match_index] : known[0]);
    if ((type == T::kContext || type == T::kAddressContext32Is0 ||
         type == T::kAddressContext32Is1 || type == T::kAddressContext64Is0 ||
         type == T::kAddressContext64Is1) &&
        packet.context.updated) {
      context_known = true;
      sixty_four_bit = packet.context.sixty_four_bit;
    }
    if (!known[0]) packet.address = 0;
  }
  return Describe(packets);
}

// Gives `data` to `tree` whole, then the end of the trace.
inline void Feed(dcd_tree_handle_t tree, std::span<const uint8_t> data) {
  uint32_t consumed = 0;
  size_t at = 0;
  while (at < data.size()) {
    ocsd_datapath_resp_t resp =
        ocsd_dt_process_data(tree, OCSD_OP_DATA, at, static_cast<uint32_t>(data.size() - at),
                             data.data() + at, &consumed);
    if (OCSD_DATA_RESP_IS_FATAL(resp) || consumed == 0) break;
    at += consumed;
  }
  ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, nullptr, &consumed);
}

// OpenCSD's configuration of the ETMv4 source `source` under `trace_id`.
inline ocsd_etmv4_cfg EtmV4Config(const TraceSource& source, uint32_t trace_id) {
  ocsd_etmv4_cfg cfg{};
  cfg.reg_idr0 = source.trcidr0;
  cfg.reg_idr1 = source.trcidr1;
  cfg.reg_idr2 = source.trcidr2;
  cfg.reg_idr8 = source.trcidr8;
  cfg.reg_configr = source.trcconfigr;
  cfg.reg_traceidr = trace_id;
  cfg.arch_ver = ((source.trcidr1 >> 4) & 0xf) >= 4 ? ARCH_AA64 : ARCH_V8;
  cfg.core_prof = profile_CortexA;
  return cfg;
}

// OpenCSD's packets of the raw (unformatted) stream `data` of `source`,
// then of the end of the trace. None if OpenCSD refuses the configuration.
inline std::vector<Etm4Packet> OpenCsdPackets(const TraceSource& source,
                                              std::span<const uint8_t> data) {
  std::vector<Etm4Packet> packets;
  dcd_tree_handle_t tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_SINGLE, 0);
  if (tree == C_API_INVALID_TREE_HANDLE) return packets;
  unsigned char csid = 0;
  ocsd_err_t err = OCSD_OK;
  if (source.protocol == TraceProtocol::kEte) {
    ocsd_ete_cfg cfg{};
    cfg.reg_idr0 = source.trcidr0;
    cfg.reg_idr1 = source.trcidr1;
    cfg.reg_idr2 = source.trcidr2;
    cfg.reg_idr8 = source.trcidr8;
    cfg.reg_devarch = source.trcdevarch;
    cfg.reg_configr = source.trcconfigr;
    cfg.reg_traceidr = source.trctraceidr;
    cfg.arch_ver = ARCH_AA64;
    cfg.core_prof = profile_CortexA;
    err = ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETE, OCSD_CREATE_FLG_PACKET_PROC, &cfg,
                                 &csid);
  } else {
    ocsd_etmv4_cfg cfg = EtmV4Config(source, source.trctraceidr);
    err = ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_PACKET_PROC, &cfg,
                                 &csid);
  }
  struct Sink {
    static ocsd_datapath_resp_t Packet(const void* context, const ocsd_datapath_op_t op,
                                       const ocsd_trc_index_t index, const void* packet) {
      if (op == OCSD_OP_DATA && packet != nullptr) {
        static_cast<std::vector<Etm4Packet>*>(const_cast<void*>(context))
            ->push_back(FromOpenCsd(*static_cast<const ocsd_etmv4_i_pkt*>(packet), index));
      }
      return OCSD_RESP_CONT;
    }
  };
  if (err == OCSD_OK) {
    err = ocsd_dt_attach_packet_callback(tree, csid, OCSD_C_API_CB_PKT_SINK,
                                         reinterpret_cast<void*>(&Sink::Packet), &packets);
  }
  if (err == OCSD_OK) Feed(tree, data);
  ocsd_destroy_dcd_tree(tree);
  return packets;
}

// A packet and the trace id whose stream it is in.
struct IdPacket {
  uint8_t trace_id = 0;
  Etm4Packet packet;
};

// OpenCSD's packets of the formatted block `data` (16-byte frames, decoded
// from a reset, as perftk's OpenCSD path configures the deformatter), for
// each ETMv4 source of `sources` under its trace id, in the order OpenCSD's
// packet processors make them.
inline std::vector<IdPacket> OpenCsdFramePackets(
    const std::vector<std::pair<uint8_t, TraceSource>>& sources, std::span<const uint8_t> data) {
  struct Context {
    uint8_t id;
    std::vector<IdPacket>* packets;
  };
  std::vector<IdPacket> packets;
  std::vector<Context> contexts;
  contexts.reserve(sources.size());
  dcd_tree_handle_t tree = ocsd_create_dcd_tree(
      OCSD_TRC_SRC_FRAME_FORMATTED, OCSD_DFRMTR_FRAME_MEM_ALIGN | OCSD_DFRMTR_RESET_ON_4X_FSYNC);
  if (tree == C_API_INVALID_TREE_HANDLE) return packets;
  struct Sink {
    static ocsd_datapath_resp_t Packet(const void* context, const ocsd_datapath_op_t op,
                                       const ocsd_trc_index_t index, const void* packet) {
      const auto* c = static_cast<const Context*>(context);
      if (op == OCSD_OP_DATA && packet != nullptr) {
        c->packets->push_back(
            {c->id, FromOpenCsd(*static_cast<const ocsd_etmv4_i_pkt*>(packet), index)});
      }
      return OCSD_RESP_CONT;
    }
  };
  bool ok = true;
  for (const auto& [id, source] : sources) {
    ocsd_etmv4_cfg cfg = EtmV4Config(source, id);
    unsigned char csid = 0;
    contexts.push_back({id, &packets});
    ok = ok &&
         ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV4I, OCSD_CREATE_FLG_PACKET_PROC, &cfg,
                                &csid) == OCSD_OK &&
         ocsd_dt_attach_packet_callback(tree, csid, OCSD_C_API_CB_PKT_SINK,
                                        reinterpret_cast<void*>(&Sink::Packet),
                                        &contexts.back()) == OCSD_OK;
  }
  if (ok) {
    uint32_t consumed = 0;
    ocsd_dt_process_data(tree, OCSD_OP_RESET, 0, 0, nullptr, &consumed);
    Feed(tree, data);
  }
  ocsd_destroy_dcd_tree(tree);
  return packets;
}

}  // namespace perftk::cs_etm::opencsd_oracle

#endif  // PERFTK_TESTS_TESTING_OPENCSD_PACKETS_H_
