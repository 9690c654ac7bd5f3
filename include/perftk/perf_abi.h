// The perf.data ABI: record types, sample and read format bits, misc flags,
// feature ids and perf_event_attr field offsets, with the kernel's and perf's
// own names. perftk never includes <linux/perf_event.h>: the Debian headers lag
// the kernel, and these values are the file format, not the running kernel's.
#ifndef PERFTK_PERF_ABI_H_
#define PERFTK_PERF_ABI_H_

#include <cstddef>
#include <cstdint>

namespace perftk {

// perf_event_header.type, kernel records.
inline constexpr uint32_t PERF_RECORD_MMAP = 1;
inline constexpr uint32_t PERF_RECORD_LOST = 2;
inline constexpr uint32_t PERF_RECORD_COMM = 3;
inline constexpr uint32_t PERF_RECORD_EXIT = 4;
inline constexpr uint32_t PERF_RECORD_THROTTLE = 5;
inline constexpr uint32_t PERF_RECORD_UNTHROTTLE = 6;
inline constexpr uint32_t PERF_RECORD_FORK = 7;
inline constexpr uint32_t PERF_RECORD_READ = 8;
inline constexpr uint32_t PERF_RECORD_SAMPLE = 9;
inline constexpr uint32_t PERF_RECORD_MMAP2 = 10;
inline constexpr uint32_t PERF_RECORD_AUX = 11;
inline constexpr uint32_t PERF_RECORD_ITRACE_START = 12;
inline constexpr uint32_t PERF_RECORD_LOST_SAMPLES = 13;
inline constexpr uint32_t PERF_RECORD_SWITCH = 14;
inline constexpr uint32_t PERF_RECORD_SWITCH_CPU_WIDE = 15;
inline constexpr uint32_t PERF_RECORD_NAMESPACES = 16;
inline constexpr uint32_t PERF_RECORD_KSYMBOL = 17;
inline constexpr uint32_t PERF_RECORD_BPF_EVENT = 18;
inline constexpr uint32_t PERF_RECORD_CGROUP = 19;
inline constexpr uint32_t PERF_RECORD_TEXT_POKE = 20;
inline constexpr uint32_t PERF_RECORD_AUX_OUTPUT_HW_ID = 21;
inline constexpr uint32_t PERF_RECORD_CALLCHAIN_DEFERRED = 22;

// perf_event_header.type, records perf itself writes (user types start at 64).
inline constexpr uint32_t PERF_RECORD_USER_TYPE_START = 64;
inline constexpr uint32_t PERF_RECORD_HEADER_ATTR = 64;
inline constexpr uint32_t PERF_RECORD_HEADER_EVENT_TYPE = 65;
inline constexpr uint32_t PERF_RECORD_HEADER_TRACING_DATA = 66;
inline constexpr uint32_t PERF_RECORD_HEADER_BUILD_ID = 67;
inline constexpr uint32_t PERF_RECORD_FINISHED_ROUND = 68;
inline constexpr uint32_t PERF_RECORD_ID_INDEX = 69;
inline constexpr uint32_t PERF_RECORD_AUXTRACE_INFO = 70;
inline constexpr uint32_t PERF_RECORD_AUXTRACE = 71;
inline constexpr uint32_t PERF_RECORD_AUXTRACE_ERROR = 72;
inline constexpr uint32_t PERF_RECORD_THREAD_MAP = 73;
inline constexpr uint32_t PERF_RECORD_CPU_MAP = 74;
inline constexpr uint32_t PERF_RECORD_STAT_CONFIG = 75;
inline constexpr uint32_t PERF_RECORD_STAT = 76;
inline constexpr uint32_t PERF_RECORD_STAT_ROUND = 77;
inline constexpr uint32_t PERF_RECORD_EVENT_UPDATE = 78;
inline constexpr uint32_t PERF_RECORD_TIME_CONV = 79;
inline constexpr uint32_t PERF_RECORD_HEADER_FEATURE = 80;
inline constexpr uint32_t PERF_RECORD_COMPRESSED = 81;
inline constexpr uint32_t PERF_RECORD_FINISHED_INIT = 82;
inline constexpr uint32_t PERF_RECORD_COMPRESSED2 = 83;
inline constexpr uint32_t PERF_RECORD_BPF_METADATA = 84;
inline constexpr uint32_t PERF_RECORD_SCHEDSTAT_CPU = 85;
inline constexpr uint32_t PERF_RECORD_SCHEDSTAT_DOMAIN = 86;

// perf_event_header.misc.
inline constexpr uint16_t PERF_RECORD_MISC_CPUMODE_MASK = 7;
inline constexpr uint16_t PERF_RECORD_MISC_CPUMODE_UNKNOWN = 0;
inline constexpr uint16_t PERF_RECORD_MISC_KERNEL = 1;
inline constexpr uint16_t PERF_RECORD_MISC_USER = 2;
inline constexpr uint16_t PERF_RECORD_MISC_HYPERVISOR = 3;
inline constexpr uint16_t PERF_RECORD_MISC_GUEST_KERNEL = 4;
inline constexpr uint16_t PERF_RECORD_MISC_GUEST_USER = 5;
inline constexpr uint16_t PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT = 1 << 12;
inline constexpr uint16_t PERF_RECORD_MISC_MMAP_DATA = 1 << 13;
inline constexpr uint16_t PERF_RECORD_MISC_COMM_EXEC = 1 << 13;
inline constexpr uint16_t PERF_RECORD_MISC_FORK_EXEC = 1 << 13;
inline constexpr uint16_t PERF_RECORD_MISC_SWITCH_OUT = 1 << 13;
inline constexpr uint16_t PERF_RECORD_MISC_EXACT_IP = 1 << 14;
inline constexpr uint16_t PERF_RECORD_MISC_SWITCH_OUT_PREEMPT = 1 << 14;
inline constexpr uint16_t PERF_RECORD_MISC_MMAP_BUILD_ID = 1 << 14;
inline constexpr uint16_t PERF_RECORD_MISC_EXT_RESERVED = 1 << 15;
// In a HEADER_BUILD_ID record: the build id's length is in the record.
inline constexpr uint16_t PERF_RECORD_MISC_BUILD_ID_SIZE = 1 << 15;

// perf_event_attr.sample_type, in the order the fields appear in a sample.
inline constexpr uint64_t PERF_SAMPLE_IP = 1ULL << 0;
inline constexpr uint64_t PERF_SAMPLE_TID = 1ULL << 1;
inline constexpr uint64_t PERF_SAMPLE_TIME = 1ULL << 2;
inline constexpr uint64_t PERF_SAMPLE_ADDR = 1ULL << 3;
inline constexpr uint64_t PERF_SAMPLE_READ = 1ULL << 4;
inline constexpr uint64_t PERF_SAMPLE_CALLCHAIN = 1ULL << 5;
inline constexpr uint64_t PERF_SAMPLE_ID = 1ULL << 6;
inline constexpr uint64_t PERF_SAMPLE_CPU = 1ULL << 7;
inline constexpr uint64_t PERF_SAMPLE_PERIOD = 1ULL << 8;
inline constexpr uint64_t PERF_SAMPLE_STREAM_ID = 1ULL << 9;
inline constexpr uint64_t PERF_SAMPLE_RAW = 1ULL << 10;
inline constexpr uint64_t PERF_SAMPLE_BRANCH_STACK = 1ULL << 11;
inline constexpr uint64_t PERF_SAMPLE_REGS_USER = 1ULL << 12;
inline constexpr uint64_t PERF_SAMPLE_STACK_USER = 1ULL << 13;
inline constexpr uint64_t PERF_SAMPLE_WEIGHT = 1ULL << 14;
inline constexpr uint64_t PERF_SAMPLE_DATA_SRC = 1ULL << 15;
inline constexpr uint64_t PERF_SAMPLE_IDENTIFIER = 1ULL << 16;
inline constexpr uint64_t PERF_SAMPLE_TRANSACTION = 1ULL << 17;
inline constexpr uint64_t PERF_SAMPLE_REGS_INTR = 1ULL << 18;
inline constexpr uint64_t PERF_SAMPLE_PHYS_ADDR = 1ULL << 19;
inline constexpr uint64_t PERF_SAMPLE_AUX = 1ULL << 20;
inline constexpr uint64_t PERF_SAMPLE_CGROUP = 1ULL << 21;
inline constexpr uint64_t PERF_SAMPLE_DATA_PAGE_SIZE = 1ULL << 22;
inline constexpr uint64_t PERF_SAMPLE_CODE_PAGE_SIZE = 1ULL << 23;
inline constexpr uint64_t PERF_SAMPLE_WEIGHT_STRUCT = 1ULL << 24;
inline constexpr uint64_t PERF_SAMPLE_WEIGHT_TYPE = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;

// perf_event_attr.read_format.
inline constexpr uint64_t PERF_FORMAT_TOTAL_TIME_ENABLED = 1ULL << 0;
inline constexpr uint64_t PERF_FORMAT_TOTAL_TIME_RUNNING = 1ULL << 1;
inline constexpr uint64_t PERF_FORMAT_ID = 1ULL << 2;
inline constexpr uint64_t PERF_FORMAT_GROUP = 1ULL << 3;
inline constexpr uint64_t PERF_FORMAT_LOST = 1ULL << 4;

// perf_event_attr.branch_sample_type bits that change the sample layout.
inline constexpr uint64_t PERF_SAMPLE_BRANCH_HW_INDEX = 1ULL << 17;
inline constexpr uint64_t PERF_SAMPLE_BRANCH_COUNTERS = 1ULL << 19;

// Markers inside a callchain that switch the context of the entries after them.
inline constexpr uint64_t PERF_CONTEXT_HV = static_cast<uint64_t>(-32);
inline constexpr uint64_t PERF_CONTEXT_KERNEL = static_cast<uint64_t>(-128);
inline constexpr uint64_t PERF_CONTEXT_USER = static_cast<uint64_t>(-512);
inline constexpr uint64_t PERF_CONTEXT_USER_DEFERRED = static_cast<uint64_t>(-640);
inline constexpr uint64_t PERF_CONTEXT_GUEST = static_cast<uint64_t>(-2048);
inline constexpr uint64_t PERF_CONTEXT_GUEST_KERNEL = static_cast<uint64_t>(-2176);
inline constexpr uint64_t PERF_CONTEXT_GUEST_USER = static_cast<uint64_t>(-2560);
inline constexpr uint64_t PERF_CONTEXT_MAX = static_cast<uint64_t>(-4095);

// perf_event_attr.type values with a meaning for rewriting tools.
inline constexpr uint32_t PERF_TYPE_HARDWARE = 0;
inline constexpr uint32_t PERF_TYPE_SOFTWARE = 1;
inline constexpr uint32_t PERF_TYPE_TRACEPOINT = 2;
inline constexpr uint32_t PERF_TYPE_HW_CACHE = 3;
inline constexpr uint32_t PERF_TYPE_RAW = 4;
inline constexpr uint32_t PERF_TYPE_BREAKPOINT = 5;

// perf_event_attr.config of PERF_TYPE_HARDWARE events synthesized from trace.
inline constexpr uint64_t PERF_COUNT_HW_INSTRUCTIONS = 1;
inline constexpr uint64_t PERF_COUNT_HW_BRANCH_INSTRUCTIONS = 4;

// perf_event_attr.branch_sample_type: any branch.
inline constexpr uint64_t PERF_SAMPLE_BRANCH_ANY = 1ULL << 3;

// PERF_RECORD_KSYMBOL: enum perf_record_ksymbol_type, and the flag of a
// symbol that goes away.
inline constexpr uint16_t PERF_RECORD_KSYMBOL_TYPE_UNKNOWN = 0;
inline constexpr uint16_t PERF_RECORD_KSYMBOL_TYPE_BPF = 1;
inline constexpr uint16_t PERF_RECORD_KSYMBOL_TYPE_OOL = 2;
inline constexpr uint16_t PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER = 1 << 0;

// Sizes of perf_event_attr across ABI versions.
inline constexpr uint32_t PERF_ATTR_SIZE_VER0 = 64;
inline constexpr uint32_t PERF_ATTR_SIZE_VER1 = 72;
inline constexpr uint32_t PERF_ATTR_SIZE_VER2 = 80;
inline constexpr uint32_t PERF_ATTR_SIZE_VER3 = 96;
inline constexpr uint32_t PERF_ATTR_SIZE_VER4 = 104;
inline constexpr uint32_t PERF_ATTR_SIZE_VER5 = 112;
inline constexpr uint32_t PERF_ATTR_SIZE_VER6 = 120;
inline constexpr uint32_t PERF_ATTR_SIZE_VER7 = 128;
inline constexpr uint32_t PERF_ATTR_SIZE_VER8 = 136;

// Byte offsets of perf_event_attr fields.
namespace attr_offset {
inline constexpr size_t kType = 0;               // u32
inline constexpr size_t kSize = 4;               // u32
inline constexpr size_t kConfig = 8;             // u64
inline constexpr size_t kSamplePeriod = 16;      // u64
inline constexpr size_t kSampleType = 24;        // u64
inline constexpr size_t kReadFormat = 32;        // u64
inline constexpr size_t kFlags = 40;             // u64 bitfield
inline constexpr size_t kWakeupEvents = 48;      // u32
inline constexpr size_t kBpType = 52;            // u32
inline constexpr size_t kConfig1 = 56;           // u64, also bp_addr, kprobe_func, uprobe_path
inline constexpr size_t kConfig2 = 64;           // u64, also bp_len, kprobe_addr, probe_offset
inline constexpr size_t kBranchSampleType = 72;  // u64
inline constexpr size_t kSampleRegsUser = 80;    // u64
inline constexpr size_t kSampleStackUser = 88;   // u32
inline constexpr size_t kClockid = 92;           // s32
inline constexpr size_t kSampleRegsIntr = 96;    // u64
inline constexpr size_t kAuxWatermark = 104;     // u32
inline constexpr size_t kSampleMaxStack = 108;   // u16
inline constexpr size_t kReserved2 = 110;        // u16
inline constexpr size_t kAuxSampleSize = 112;    // u32
inline constexpr size_t kReserved3 = 116;        // u32
inline constexpr size_t kSigData = 120;          // u64
inline constexpr size_t kConfig3 = 128;          // u64
}  // namespace attr_offset

// Bits of the perf_event_attr flags word (little-endian bitfield numbering).
inline constexpr int kAttrFlagExcludeUser = 4;  // then exclude_kernel, _hv, _idle: 5, 6, 7
inline constexpr int kAttrFlagSampleIdAll = 18;
inline constexpr int kAttrFlagExcludeHost = 19;
inline constexpr int kAttrFlagExcludeGuest = 20;
inline constexpr int kAttrFlagExcludeCallchainUser = 22;
inline constexpr int kAttrFlagUseClockid = 25;

// Feature sections of a perf.data file (bit numbers of adds_features).
enum Feature : int {
  HEADER_RESERVED = 0,
  HEADER_TRACING_DATA = 1,
  HEADER_BUILD_ID = 2,
  HEADER_HOSTNAME = 3,
  HEADER_OSRELEASE = 4,
  HEADER_VERSION = 5,
  HEADER_ARCH = 6,
  HEADER_NRCPUS = 7,
  HEADER_CPUDESC = 8,
  HEADER_CPUID = 9,
  HEADER_TOTAL_MEM = 10,
  HEADER_CMDLINE = 11,
  HEADER_EVENT_DESC = 12,
  HEADER_CPU_TOPOLOGY = 13,
  HEADER_NUMA_TOPOLOGY = 14,
  HEADER_BRANCH_STACK = 15,
  HEADER_PMU_MAPPINGS = 16,
  HEADER_GROUP_DESC = 17,
  HEADER_AUXTRACE = 18,
  HEADER_STAT = 19,
  HEADER_CACHE = 20,
  HEADER_SAMPLE_TIME = 21,
  HEADER_MEM_TOPOLOGY = 22,
  HEADER_CLOCKID = 23,
  HEADER_DIR_FORMAT = 24,
  HEADER_BPF_PROG_INFO = 25,
  HEADER_BPF_BTF = 26,
  HEADER_COMPRESSED = 27,
  HEADER_CPU_PMU_CAPS = 28,
  HEADER_CLOCK_DATA = 29,
  HEADER_HYBRID_TOPOLOGY = 30,
  HEADER_PMU_CAPS = 31,
  HEADER_CPU_DOMAIN_INFO = 32,
  HEADER_LAST_FEATURE,
  HEADER_FEAT_BITS = 256,
};

}  // namespace perftk

#endif  // PERFTK_PERF_ABI_H_
