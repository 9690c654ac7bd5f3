#include "perf/describe.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "perf/features.h"
#include "perf/sample.h"

namespace perftk::perf {

Field Field::Number(std::string name, uint64_t value) {
  Field f;
  f.name = std::move(name);
  f.number = value;
  return f;
}

Field Field::Address(std::string name, uint64_t value) {
  Field f = Number(std::move(name), value);
  f.kind = Kind::kAddress;
  return f;
}

Field Field::Text(std::string name, std::string value) {
  Field f;
  f.name = std::move(name);
  f.kind = Kind::kText;
  f.text = std::move(value);
  return f;
}

Field Field::AddressList(std::string name, std::vector<uint64_t> values) {
  Field f;
  f.name = std::move(name);
  f.kind = Kind::kAddressList;
  f.list = std::move(values);
  return f;
}

std::string SampleTypeNames(uint64_t sample_type) {
  static constexpr const char* kNames[] = {"IP",
                                           "TID",
                                           "TIME",
                                           "ADDR",
                                           "READ",
                                           "CALLCHAIN",
                                           "ID",
                                           "CPU",
                                           "PERIOD",
                                           "STREAM_ID",
                                           "RAW",
                                           "BRANCH_STACK",
                                           "REGS_USER",
                                           "STACK_USER",
                                           "WEIGHT",
                                           "DATA_SRC",
                                           "IDENTIFIER",
                                           "TRANSACTION",
                                           "REGS_INTR",
                                           "PHYS_ADDR",
                                           "AUX",
                                           "CGROUP",
                                           "DATA_PAGE_SIZE",
                                           "CODE_PAGE_SIZE",
                                           "WEIGHT_STRUCT"};
  std::vector<std::string> names;
  for (int bit = 0; bit < 64; ++bit) {
    if (!((sample_type >> bit) & 1)) continue;
    names.push_back(bit < static_cast<int>(std::size(kNames)) ? kNames[bit]
                                                              : absl::StrCat("bit", bit));
  }
  return names.empty() ? "none" : absl::StrJoin(names, "|");
}

namespace {

const char* CpumodeName(uint16_t cpumode) {
  switch (cpumode) {
    case PERF_RECORD_MISC_KERNEL:
      return "kernel";
    case PERF_RECORD_MISC_USER:
      return "user";
    case PERF_RECORD_MISC_HYPERVISOR:
      return "hypervisor";
    case PERF_RECORD_MISC_GUEST_KERNEL:
      return "guest-kernel";
    case PERF_RECORD_MISC_GUEST_USER:
      return "guest-user";
    default:
      return "unknown";
  }
}

std::string Hex(base::Bytes bytes) {
  std::string out;
  for (std::byte b : bytes)
    absl::StrAppend(&out, absl::Hex(static_cast<uint8_t>(b), absl::kZeroPad2));
  return out;
}

void DescribeSample(const Record& record, const SampleFormat& f, std::vector<Field>& out) {
  absl::StatusOr<Sample> s = DecodeSample(f, record.body());
  if (!s.ok()) {
    out.push_back(Field::Text("error", std::string(s.status().message())));
    return;
  }
  if (f.has(PERF_SAMPLE_IDENTIFIER)) out.push_back(Field::Number("identifier", s->identifier));
  if (f.has(PERF_SAMPLE_IP)) out.push_back(Field::Address("ip", s->ip));
  if (f.has(PERF_SAMPLE_TID)) {
    out.push_back(Field::Number("pid", s->pid));
    out.push_back(Field::Number("tid", s->tid));
  }
  if (f.has(PERF_SAMPLE_TIME)) out.push_back(Field::Number("time", s->time));
  if (f.has(PERF_SAMPLE_ADDR)) out.push_back(Field::Address("addr", s->addr));
  if (f.has(PERF_SAMPLE_ID)) out.push_back(Field::Number("id", s->id));
  if (f.has(PERF_SAMPLE_STREAM_ID)) out.push_back(Field::Number("stream_id", s->stream_id));
  if (f.has(PERF_SAMPLE_CPU)) out.push_back(Field::Number("cpu", s->cpu));
  if (f.has(PERF_SAMPLE_PERIOD)) out.push_back(Field::Number("period", s->period));
  if (f.has(PERF_SAMPLE_READ)) {
    std::vector<uint64_t> values;
    for (const ReadValue& v : s->read.values) values.push_back(v.value);
    out.push_back(Field::AddressList("read_values", values));
  }
  if (f.has(PERF_SAMPLE_CALLCHAIN)) out.push_back(Field::AddressList("callchain", s->callchain));
  if (f.has(PERF_SAMPLE_RAW)) out.push_back(Field::Number("raw_size", s->raw.size()));
  if (f.has(PERF_SAMPLE_BRANCH_STACK)) {
    std::vector<uint64_t> pairs;
    for (const BranchEntry& e : s->branch_stack.entries) {
      pairs.push_back(e.from);
      pairs.push_back(e.to);
    }
    out.push_back(Field::Number("branch_nr", s->branch_stack.entries.size()));
    out.push_back(Field::AddressList("branch_from_to", pairs));
  }
  if (f.has(PERF_SAMPLE_REGS_USER))
    out.push_back(Field::AddressList("regs_user", s->regs_user.values));
  if (f.has(PERF_SAMPLE_STACK_USER)) {
    out.push_back(Field::Number("stack_user_size", s->stack_user.data.size()));
    out.push_back(Field::Number("stack_user_dyn_size", s->stack_user.dyn_size));
  }
  if (f.sample_type & PERF_SAMPLE_WEIGHT_TYPE) out.push_back(Field::Number("weight", s->weight));
  if (f.has(PERF_SAMPLE_DATA_SRC)) out.push_back(Field::Address("data_src", s->data_src));
  if (f.has(PERF_SAMPLE_TRANSACTION)) out.push_back(Field::Address("transaction", s->transaction));
  if (f.has(PERF_SAMPLE_REGS_INTR))
    out.push_back(Field::AddressList("regs_intr", s->regs_intr.values));
  if (f.has(PERF_SAMPLE_PHYS_ADDR)) out.push_back(Field::Address("phys_addr", s->phys_addr));
  if (f.has(PERF_SAMPLE_CGROUP)) out.push_back(Field::Number("cgroup", s->cgroup));
  if (f.has(PERF_SAMPLE_DATA_PAGE_SIZE))
    out.push_back(Field::Number("data_page_size", s->data_page_size));
  if (f.has(PERF_SAMPLE_CODE_PAGE_SIZE))
    out.push_back(Field::Number("code_page_size", s->code_page_size));
  if (f.has(PERF_SAMPLE_AUX)) out.push_back(Field::Number("aux_size", s->aux.size()));
}

void DescribeTrailer(const Record& record, const SampleFormat& f, std::vector<Field>& out) {
  if (!f.sample_id_all || record.type() >= PERF_RECORD_USER_TYPE_START) return;
  absl::StatusOr<SampleId> id = DecodeSampleId(f, record.bytes());
  if (!id.ok()) {
    out.push_back(Field::Text("error", std::string(id.status().message())));
    return;
  }
  if (f.has(PERF_SAMPLE_TID)) {
    out.push_back(Field::Number("sample_pid", id->pid));
    out.push_back(Field::Number("sample_tid", id->tid));
  }
  if (f.has(PERF_SAMPLE_TIME)) out.push_back(Field::Number("time", id->time));
  if (f.has(PERF_SAMPLE_CPU)) out.push_back(Field::Number("cpu", id->cpu));
  if (f.has(PERF_SAMPLE_ID) || f.has(PERF_SAMPLE_IDENTIFIER)) {
    out.push_back(Field::Number("id", f.has(PERF_SAMPLE_IDENTIFIER) ? id->identifier : id->id));
  }
}

template <typename View>
void WithView(const Record& record, std::vector<Field>& out, auto describe) {
  absl::StatusOr<View> view = View::From(record);
  if (!view.ok()) {
    out.push_back(Field::Text("error", std::string(view.status().message())));
    return;
  }
  describe(*view);
}

}  // namespace

std::vector<Field> DescribeRecord(const Record& record, const EventList& events) {
  std::vector<Field> out;
  out.push_back(Field::Number("offset", record.file_offset()));
  out.push_back(Field::Text("type", RecordTypeName(record.type())));
  out.push_back(Field::Number("size", record.size()));
  out.push_back(Field::Text("cpumode", CpumodeName(record.cpumode())));
  if (record.misc() & ~PERF_RECORD_MISC_CPUMODE_MASK) {
    out.push_back(Field::Address("misc", record.misc()));
  }
  switch (record.type()) {
    case PERF_RECORD_MMAP:
      WithView<MmapRecord>(record, out, [&](const MmapRecord& m) {
        out.push_back(Field::Number("pid", m.pid()));
        out.push_back(Field::Number("tid", m.tid()));
        out.push_back(Field::Address("start", m.start()));
        out.push_back(Field::Address("len", m.len()));
        out.push_back(Field::Address("pgoff", m.pgoff()));
        out.push_back(Field::Text("filename", std::string(m.filename())));
      });
      break;
    case PERF_RECORD_MMAP2:
      WithView<Mmap2Record>(record, out, [&](const Mmap2Record& m) {
        out.push_back(Field::Number("pid", m.pid()));
        out.push_back(Field::Number("tid", m.tid()));
        out.push_back(Field::Address("start", m.start()));
        out.push_back(Field::Address("len", m.len()));
        out.push_back(Field::Address("pgoff", m.pgoff()));
        if (m.has_build_id()) {
          out.push_back(Field::Text("build_id", Hex(m.build_id())));
        } else {
          out.push_back(Field::Number("maj", m.maj()));
          out.push_back(Field::Number("min", m.min()));
          out.push_back(Field::Number("ino", m.ino()));
          out.push_back(Field::Number("ino_generation", m.ino_generation()));
        }
        out.push_back(Field::Address("prot", m.prot()));
        out.push_back(Field::Address("flags", m.flags()));
        out.push_back(Field::Text("filename", std::string(m.filename())));
      });
      break;
    case PERF_RECORD_COMM:
      WithView<CommRecord>(record, out, [&](const CommRecord& c) {
        out.push_back(Field::Number("pid", c.pid()));
        out.push_back(Field::Number("tid", c.tid()));
        out.push_back(Field::Text("comm", std::string(c.comm())));
        if (c.is_exec()) out.push_back(Field::Text("exec", "yes"));
      });
      break;
    case PERF_RECORD_FORK:
    case PERF_RECORD_EXIT:
      WithView<ForkRecord>(record, out, [&](const ForkRecord& f) {
        out.push_back(Field::Number("pid", f.pid()));
        out.push_back(Field::Number("ppid", f.ppid()));
        out.push_back(Field::Number("tid", f.tid()));
        out.push_back(Field::Number("ptid", f.ptid()));
      });
      break;
    case PERF_RECORD_KSYMBOL:
      WithView<KsymbolRecord>(record, out, [&](const KsymbolRecord& k) {
        out.push_back(Field::Address("addr", k.addr()));
        out.push_back(Field::Number("len", k.len()));
        out.push_back(Field::Number("ksym_type", k.ksym_type()));
        out.push_back(Field::Number("flags", k.flags()));
        out.push_back(Field::Text("name", std::string(k.name())));
      });
      break;
    case PERF_RECORD_AUX:
      WithView<AuxRecord>(record, out, [&](const AuxRecord& a) {
        out.push_back(Field::Address("aux_offset", a.aux_offset()));
        out.push_back(Field::Address("aux_size", a.aux_size()));
        out.push_back(Field::Address("flags", a.flags()));
      });
      break;
    case PERF_RECORD_AUXTRACE:
      WithView<AuxtraceRecord>(record, out, [&](const AuxtraceRecord& a) {
        out.push_back(Field::Address("payload_size", a.payload_size()));
        out.push_back(Field::Address("aux_offset", a.offset()));
        out.push_back(Field::Address("reference", a.reference()));
        out.push_back(Field::Number("idx", a.idx()));
        out.push_back(Field::Number("tid", a.tid()));
        out.push_back(Field::Number("cpu", a.cpu()));
      });
      break;
    case PERF_RECORD_SWITCH_CPU_WIDE:
      WithView<SwitchRecord>(record, out, [&](const SwitchRecord& s) {
        out.push_back(Field::Number("next_prev_pid", s.next_prev_pid()));
        out.push_back(Field::Number("next_prev_tid", s.next_prev_tid()));
      });
      break;
    default:
      break;
  }
  if (events.empty() || record.type() >= PERF_RECORD_USER_TYPE_START) return out;
  absl::StatusOr<size_t> index = events.IndexOf(record);
  if (!index.ok()) {
    out.push_back(Field::Text("error", std::string(index.status().message())));
    return out;
  }
  if (events.size() > 1) out.push_back(Field::Number("event", *index));
  if (record.type() == PERF_RECORD_SAMPLE) {
    DescribeSample(record, events.format(*index), out);
  } else {
    DescribeTrailer(record, events.format(*index), out);
  }
  return out;
}

std::vector<Field> DescribeAttr(const EventAttr& attr, size_t index) {
  std::vector<Field> out;
  out.push_back(Field::Number("index", index));
  out.push_back(Field::Text("event", DescribeAttr(attr)));
  out.push_back(Field::Number("type", attr.type()));
  out.push_back(Field::Number("size", attr.size()));
  out.push_back(Field::Address("config", attr.config()));
  out.push_back(Field::Number("sample_period", attr.U64(attr_offset::kSamplePeriod)));
  out.push_back(Field::Text("sample_type", SampleTypeNames(attr.sample_type())));
  out.push_back(Field::Address("read_format", attr.read_format()));
  out.push_back(Field::Address("flags", attr.flags()));
  if (attr.branch_sample_type())
    out.push_back(Field::Address("branch_sample_type", attr.branch_sample_type()));
  if (attr.sample_regs_user())
    out.push_back(Field::Address("sample_regs_user", attr.sample_regs_user()));
  if (attr.sample_stack_user())
    out.push_back(Field::Number("sample_stack_user", attr.sample_stack_user()));
  if (attr.config1()) out.push_back(Field::Address("config1", attr.config1()));
  if (attr.config2()) out.push_back(Field::Address("config2", attr.config2()));
  out.push_back(Field::AddressList("ids", attr.ids()));
  return out;
}

std::vector<Field> DescribeFeature(int feature, const FeatureSet& features) {
  std::vector<Field> out;
  out.push_back(Field::Text("feature", FeatureName(feature)));
  out.push_back(Field::Number("bit", feature));
  out.push_back(Field::Number("size", features.at(feature).size()));
  switch (feature) {
    case HEADER_HOSTNAME:
    case HEADER_OSRELEASE:
    case HEADER_VERSION:
    case HEADER_ARCH:
    case HEADER_CPUDESC:
    case HEADER_CPUID: {
      absl::StatusOr<std::string> text = ReadStringFeature(features, feature);
      out.push_back(text.ok() ? Field::Text("value", *text)
                              : Field::Text("error", std::string(text.status().message())));
      break;
    }
    case HEADER_NRCPUS: {
      absl::StatusOr<NrCpus> n = ReadNrCpus(features);
      if (n.ok()) {
        out.push_back(Field::Number("online", n->online));
        out.push_back(Field::Number("available", n->available));
      }
      break;
    }
    case HEADER_CMDLINE: {
      absl::StatusOr<std::vector<std::string>> args = ReadCmdline(features);
      if (args.ok()) out.push_back(Field::Text("value", absl::StrJoin(*args, " ")));
      break;
    }
    case HEADER_BUILD_ID: {
      absl::StatusOr<std::vector<BuildIdEntry>> ids = ReadBuildIds(features);
      if (!ids.ok()) {
        out.push_back(Field::Text("error", std::string(ids.status().message())));
        break;
      }
      for (const BuildIdEntry& e : *ids) {
        out.push_back(Field::Text(e.build_id.ToHex(), e.filename));
      }
      break;
    }
    default:
      break;
  }
  return out;
}

}  // namespace perftk::perf
