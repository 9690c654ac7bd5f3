// The packets of one ETMv4 or ETE instruction trace stream, parsed as
// OpenCSD 1.3.3's packet processor parses them.
//
// Part of the fast decoder (issue 29): the decoder proper reads these
// packets, and OpenCSD's packet processor is the oracle
// (tests/cs_etm/etm4_packets_opencsd_test.cc compares every packet of every
// trace in the tests). "As OpenCSD parses them" includes what it does with
// damaged trace: where a packet ends when its bytes are wrong, which errors
// it reports, how it finds the stream's first A-sync, and the fields a
// packet inherits from those before it (the last three addresses, the
// context, the timestamp's high bits).
//
// The stream is given in pieces of any size (a CoreSight frame carries a
// few bytes of each source); a packet split across pieces is completed by
// the next piece. Packet types carry OpenCSD's numbers
// (ocsd_etmv4_i_pkt_type), which are the header bytes of IHI 0064.
#ifndef PERFTK_CS_ETM_ETM4_PACKETS_H_
#define PERFTK_CS_ETM_ETM4_PACKETS_H_

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "cs_etm/metadata.h"

namespace perftk::cs_etm {

enum class Etm4PacketType : uint16_t {
  // Parser states and errors.
  kNotSync = 0x200,            // bytes before the first A-sync
  kIncompleteEot = 0x201,      // a partial packet at the end of the trace
  kBadSequence = 0x300,        // bytes that no packet of the header's type can hold
  kReserved = 0x302,           // a reserved header
  kReservedForConfig = 0x303,  // a header the trace unit's configuration does not use
  // Packets, by header.
  kExtension = 0x00,  // only as the type an error packet was read as
  kTraceInfo = 0x01,
  kTimestamp = 0x02,
  kTraceOn = 0x04,
  kFunctionReturn = 0x05,
  kException = 0x06,
  kExceptionReturn = 0x07,
  kIte = 0x09,  // ETE software instrumentation
  kTransactionStart = 0x0a,
  kTransactionCommit = 0x0b,
  kCycleCountF2 = 0x0c,
  kCycleCountF1 = 0x0e,
  kCycleCountF3 = 0x10,
  kNumberedDataSync = 0x20,
  kUnnumberedDataSync = 0x28,
  kCommit = 0x2d,
  kCancelF1 = 0x2e,
  kCancelF1Mispredict = 0x2f,
  kMispredict = 0x30,
  kCancelF2 = 0x34,
  kCancelF3 = 0x38,
  kIgnore = 0x70,
  kEvent = 0x71,
  kContext = 0x80,
  kAddressContext32Is0 = 0x82,
  kAddressContext32Is1 = 0x83,
  kAddressContext64Is0 = 0x85,
  kAddressContext64Is1 = 0x86,
  kTimestampMarker = 0x88,
  kAddressMatch = 0x90,
  kShortAddressIs0 = 0x95,
  kShortAddressIs1 = 0x96,
  kLongAddress32Is0 = 0x9a,
  kLongAddress32Is1 = 0x9b,
  kLongAddress64Is0 = 0x9d,
  kLongAddress64Is1 = 0x9e,
  kQ = 0xa0,
  kSourceAddressMatch = 0xb0,
  kSourceShortAddressIs0 = 0xb4,
  kSourceShortAddressIs1 = 0xb5,
  kSourceLongAddress32Is0 = 0xb6,
  kSourceLongAddress32Is1 = 0xb7,
  kSourceLongAddress64Is0 = 0xb8,
  kSourceLongAddress64Is1 = 0xb9,
  kAtomF6 = 0xc0,
  kAtomF5 = 0xd5,
  kAtomF2 = 0xd8,
  kAtomF4 = 0xdc,
  kAtomF1 = 0xf6,
  kAtomF3 = 0xf8,
  // Extension packets (header 0x00, then this byte).
  kAsync = 0x100,
  kDiscard = 0x103,
  kOverflow = 0x105,
  // ETE exceptions with their own meaning.
  kPeReset = 0x400,
  kTransactionFail = 0x401,
};

// What a context (or address and context) packet says.
struct Etm4Context {
  uint32_t context_id = 0;  // the last one traced
  uint32_t vmid = 0;        // the last one traced
  uint8_t el = 0;
  bool updated = false;  // false: the context is the same as before
  bool sixty_four_bit = false;
  bool non_secure = false;
  bool nse = false;                 // FEAT_RME: root or realm
  bool context_id_updated = false;  // context_id holds a new value
  bool vmid_updated = false;        // vmid holds a new value
};

// One packet. Only the fields of its kind are meaningful; the others are
// unspecified.
struct Etm4Packet {
  uint64_t index = 0;  // of the packet's first byte in the stream
  // Address packets, exact matches, address and context, Q with address,
  // ETE's PE reset: the full address after the packet (compressed forms
  // complete the one before).
  uint64_t address = 0;
  uint64_t timestamp = 0;  // timestamp packets: the whole value after this one
  Etm4PacketType type = Etm4PacketType::kNotSync;
  Etm4PacketType error_of = Etm4PacketType::kNotSync;  // error types: what the header began
  // Atoms (also carried by mispredict and cancel packets): bit i is atom i
  // (E = 1), oldest first.
  uint32_t atom_bits = 0;
  uint8_t atom_count = 0;
  uint8_t isa = 0;  // the address's instruction set bit: 0 for A64
  uint8_t match_index = 0;
  bool has_cycle_count = false;
  bool has_commit = false;
  uint8_t address_interpretation = 0;  // exceptions
  uint16_t exception_type = 0;
  uint32_t cycle_count = 0;
  uint32_t commit = 0;  // elements committed (commit, cycle count F1/F2/F3)
  uint32_t cancel = 0;  // elements cancelled (cancel, mispredict)
  Etm4Context context;  // context packets, address and context packets
  // Trace info.
  uint32_t trace_info = 0;
  uint32_t cc_threshold = 0;
  uint32_t p0_key = 0;
  uint32_t spec_depth = 0;
  // Q packets, events.
  uint32_t q_count = 0;
  uint8_t q_type = 0;
  uint8_t event = 0;
};

// What the parser needs of the trace unit's configuration (OpenCSD's
// EtmV4Config and ETEConfig read the same registers).
struct Etm4Config {
  uint8_t major = 4;  // ETMv4: TRCIDR1; ETE: TRCDEVARCH (5)
  uint8_t minor = 0;
  uint32_t cid_bytes = 4;          // context id size (TRCIDR2.CIDSIZE)
  uint32_t vmid_bytes = 0;         // VMID size (TRCIDR2.VMIDSIZE)
  uint32_t cc_bits = 12;           // cycle counter size (TRCIDR2.CCSIZE)
  bool commit_opt1 = false;        // TRCIDR0.COMMOPT with cycle counting: no commit fields
  uint32_t max_spec_depth = 0;     // TRCIDR8
  bool q_elements = false;         // TRCIDR0.QSUPP
  bool conditional_trace = false;  // TRCIDR0.CONDTYPE support and TRCCONFIGR.COND
  bool data_trace = false;         // data address or value tracing configured
  bool m_profile = false;          // always false for perf's sources
  // TRCIDR2.WFXMODE on an ETMv4.3+ (the decoder's business, kept here with
  // the rest of the configuration).
  bool wfi_wfe_branches = false;

  static Etm4Config For(const TraceSource& source);
  uint8_t version() const { return static_cast<uint8_t>(major << 4 | minor); }
};

class Etm4PacketParser {
 public:
  explicit Etm4PacketParser(const Etm4Config& config);

  // Forgets the stream: unsynchronized, no packet state (OpenCSD's reset).
  void Reset();
  // Parses `bytes`, the stream from index `index` on, appending every packet
  // they complete to `out`.
  void Parse(std::span<const uint8_t> bytes, uint64_t index, std::vector<Etm4Packet>& out);
  // The end of the stream: a packet begun and not complete is reported as
  // kIncompleteEot.
  void Finish(std::vector<Etm4Packet>& out);

  bool synchronized() const { return synchronized_; }
  // No packet completed from now on starts before this index: the start of
  // the packet being read, or the end of the bytes given so far.
  uint64_t pending_index() const;

 private:
  // Which part of a packet the next byte continues.
  enum class Reading : uint8_t {
    kHeader,
    kNotSync,
    kExtension,
    kAsync,
    kTraceInfo,
    kTimestamp,
    kException,
    kCycleCount,
    kSpeculation,
    kContext,
    kAddressContext,
    kShortAddress,
    kLongAddress,
    kQ,
    kIte,
  };
  struct Header {
    Etm4PacketType type = Etm4PacketType::kReserved;
    Reading reading = Reading::kHeader;  // kHeader: a one-byte packet
    bool reserved = false;               // invalid for this configuration
    bool reserved_for_config = false;
  };

  void BuildHeaderTable();
  // The packet at rest[0] when it is a common one (atoms, addresses, exact
  // matches) and whole in `rest`: returns its size; 0 otherwise.
  size_t ReadWholePacket(std::span<const uint8_t> rest, uint64_t index,
                         std::vector<Etm4Packet>& out);
  static void AtomsOf(Etm4PacketType type, uint8_t header, Etm4Packet& packet);
  static uint64_t LongAddress64(const uint8_t* bytes, uint8_t isa);
  static uint32_t LongAddress32(const uint8_t* bytes, uint8_t isa);
  // Takes the next byte of the stream, at `index`.
  void Step(uint8_t byte, uint64_t index, std::vector<Etm4Packet>& out);
  void ReadHeader(uint8_t byte, std::vector<Etm4Packet>& out);
  void ReadNotSync(uint8_t byte, uint64_t index, std::vector<Etm4Packet>& out);
  void ReadExtension(uint8_t byte, std::vector<Etm4Packet>& out);
  void ReadAsync(uint8_t byte, std::vector<Etm4Packet>& out);
  void ReadTraceInfo(uint8_t byte, std::vector<Etm4Packet>& out);
  void ReadTimestamp(uint8_t byte, std::vector<Etm4Packet>& out);
  void ReadException(uint8_t byte, std::vector<Etm4Packet>& out);
  void ReadCycleCount(uint8_t byte, std::vector<Etm4Packet>& out);
  void ReadSpeculation(uint8_t byte, std::vector<Etm4Packet>& out);
  void ReadContext(uint8_t byte, std::vector<Etm4Packet>& out);
  void ReadAddressContext(uint8_t byte, std::vector<Etm4Packet>& out);
  void ReadShortAddress(uint8_t byte, std::vector<Etm4Packet>& out);
  void ReadLongAddress(uint8_t byte, std::vector<Etm4Packet>& out);
  void ReadQ(uint8_t byte, std::vector<Etm4Packet>& out);
  void ReadIte(uint8_t byte, std::vector<Etm4Packet>& out);

  // Completes the packet in `bytes_` as `packet_`.
  void Send(std::vector<Etm4Packet>& out);
  void SendError(Etm4PacketType error, std::vector<Etm4Packet>& out);
  // Drops the first `count` bytes of an unsynchronized stretch; the first
  // drop is reported as a packet. DumpUnsynced drops them now or, at the
  // last byte of a piece, when the next piece comes.
  void DumpUnsynced(size_t count, std::vector<Etm4Packet>& out);
  void DropUnsynced(size_t count, std::vector<Etm4Packet>& out);

  void SetAtoms(uint32_t bits, uint8_t count);
  void SetContextFields(size_t at);
  void PushAddress(uint64_t address, uint8_t isa);
  void Set64BitAddress(uint64_t address, uint8_t isa);
  void Set32BitAddress(uint32_t address, uint8_t isa);
  void UpdateShortAddress(uint32_t value, uint8_t isa, int bits);
  void MatchAddress(uint8_t index);
  // A continuation field (7 bits a byte, at most `limit` bytes) at `at`;
  // returns the bytes it used.
  size_t ContinuationField(size_t at, uint32_t& value, size_t limit = 5) const;
  int ShortAddressField(size_t at, uint8_t isa, uint32_t& value, int& bits) const;

  const Etm4Config config_;
  std::array<Header, 256> headers_;

  bool synchronized_ = false;
  bool sent_not_sync_ = false;
  bool seen_trace_info_ = false;
  Reading reading_ = Reading::kHeader;
  std::vector<uint8_t> bytes_;  // of the packet being read
  uint64_t packet_index_ = 0;
  uint64_t end_index_ = 0;         // where the bytes given so far end
  uint64_t index_after_dump_ = 0;  // the packet index once unsynced bytes go
  bool have_index_after_dump_ = false;
  size_t deferred_dump_ = 0;    // bytes to drop when the next piece comes
  bool last_of_piece_ = false;  // the byte being read ends its piece
  Etm4Packet packet_;           // the packet being read, with the state packets inherit

  // State the packets carry forward.
  struct Address {
    uint64_t value = 0;
    uint8_t isa = 0;
    uint8_t valid_bits = 0;
    bool sixty_four = false;
  };
  Address address_;                   // the current address
  std::array<Address, 3> history_{};  // the last three addresses, newest first
  Etm4Context context_;
  bool context_valid_ = false;
  uint64_t timestamp_ = 0;
  bool timestamp_valid_ = false;
  uint32_t cc_threshold_ = 0;
  bool cc_threshold_valid_ = false;

  // Within one packet. The flags and counters are shared by the packet
  // kinds: each Read function says, where it sets them, what they count
  // (for example remaining_a/remaining_b are VMID and context id bytes in a
  // context packet, done_a/done_b the timestamp and its cycle count).
  struct Progress {
    bool done_a = false;
    bool done_b = false;
    bool has_second = false;
    int remaining_a = 0;
    int remaining_b = 0;
    int remaining_c = 0;
    uint8_t sections = 0;
    int control_bytes = 0;
    uint8_t isa = 0;
    bool sixty_four = false;
    bool short_form = false;
    bool match = false;
    bool has_address = false;
    uint8_t q_type = 0;
    uint8_t size = 0;
  };
  Progress in_packet_;
};

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_ETM4_PACKETS_H_
