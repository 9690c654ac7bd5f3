#include "cli/cs_etm_decode_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <regex>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/input_file.h"
#include "base/output_file.h"
#include "cli/build_id_flags.h"
#include "cli/input_list.h"
#include "cli/jobs.h"
#include "cli/standard_streams.h"
#include "cli/usage.h"
#include "cli/warnings.h"
#include "cs_etm/decode_tool.h"
#include "cs_etm/profile_text.h"
#include "cs_etm/recordings.h"
#include "perf/reader.h"
#include "pipeline/pipeline.h"

namespace perftk::cli {
namespace {

constexpr int kMaxJobs = 256;

absl::StatusOr<cs_etm::OutputFormat> ParseFormat(const std::string& name) {
  if (name == "perf") return cs_etm::OutputFormat::kPerf;
  if (name == "autofdo") return cs_etm::OutputFormat::kAutoFdo;
  if (name == "bolt") return cs_etm::OutputFormat::kBolt;
  if (name == "script") return cs_etm::OutputFormat::kScript;
  return absl::InvalidArgumentError(
      absl::StrCat("--format=", name, ": expected perf, autofdo, bolt or script"));
}

// The inputs with each "@FILE" replaced by the paths FILE lists.
absl::StatusOr<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> paths;
  absl::Status listed =
      ForEachInput(inputs, "list of inputs (-i @FILE)", [&paths](const std::string& path) {
        paths.push_back(path);
        return absl::OkStatus();
      });
  if (!listed.ok()) return listed;
  if (paths.empty()) return UsageError("no input: -i @FILE lists no recording");
  return paths;
}

// An explicit kernel image must be a regular file that opens. Opening it
// before the output also notes it as an input of the run, so that an -o
// naming it is refused (base/file_roles.h).
absl::Status CheckKernelSource(const std::string& path, absl::string_view role) {
  if (path.empty()) return absl::OkStatus();
  absl::StatusOr<int> fd = base::OpenInputFile(path, role);
  if (!fd.ok()) return fd.status();
  close(*fd);
  return absl::OkStatus();
}

void PrintSummary(const cs_etm::DecodeStats& stats, size_t inputs) {
  std::fprintf(
      stderr,
      "perftk cs-etm-decode: %s%lu trace blocks (%lu bytes; %lu by the fast decoder, "
      "%lu by OpenCSD), %lu packets, %lu instruction samples, %lu branch samples\n",
      inputs > 1 ? absl::StrCat(inputs, " recordings: ").c_str() : "",
      static_cast<unsigned long>(stats.blocks), static_cast<unsigned long>(stats.trace_bytes),
      static_cast<unsigned long>(stats.fast_blocks),
      static_cast<unsigned long>(stats.opencsd_blocks), static_cast<unsigned long>(stats.packets),
      static_cast<unsigned long>(stats.instruction_samples),
      static_cast<unsigned long>(stats.branch_samples));
}

// --format=autofdo or bolt: every input decoded, the profiles added up
// (recordings.h), the text written once.
absl::Status RunProfileDecode(const CsEtmDecodeOptions& options,
                              const std::vector<std::string>& inputs,
                              const cs_etm::DecodeOptions& decode, bool llvm_sample) {
  std::function<bool(const profile::BinaryKey&)> keep;
  if (!options.binary.empty()) {
    std::shared_ptr<const std::regex> pattern;
    try {
      pattern = std::make_shared<const std::regex>(options.binary);
    } catch (const std::regex_error& e) {
      return UsageError(
          absl::StrCat("--binary=", options.binary, ": not a regular expression (", e.what(), ")"));
    }
    keep = [pattern](const profile::BinaryKey& key) {
      return std::regex_search(key.path, *pattern);
    };
  }
  // Open (and claim) the output first: an input of the run that is the
  // output is then refused, and the output is only replaced whole.
  absl::StatusOr<std::unique_ptr<base::OutputFile>> out =
      base::OutputFile::Open(options.output.empty() ? "-" : options.output, "output (-o)");
  if (!out.ok()) return out.status();
  cs_etm::RecordingsDecode run = cs_etm::DecodeRecordings(inputs, decode, keep);
  PrintWarnings(run.warnings);
  if (!run.status.ok()) return run.status;
  if (keep && run.profile.binaries().empty() && !run.dropped.empty()) {
    StderrWarnings().Warn(absl::StrCat(
        "--binary=", options.binary,
        " matches none of the binaries the trace ran in: ", absl::StrJoin(run.dropped, ", ")));
  }
  if (run.profile.saturated() > 0) {
    WarnSaturated(run.profile.saturated());
  }
  const profile::Format format = decode.format == cs_etm::OutputFormat::kAutoFdo
                                     ? profile::Format::kAutoFdo
                                     : profile::Format::kBolt;
  absl::StatusOr<cs_etm::ProfileText> text =
      llvm_sample ? cs_etm::WriteLlvmSampleText(run.profile, options.dso, options.symfs)
                  : cs_etm::WriteProfileText(run.profile, format, options.dso);
  if (!text.ok()) return text.status();
  PrintWarnings(text->warnings);
  if (absl::Status s = (*out)->Write(text->text); !s.ok()) return s;
  if (absl::Status s = (*out)->Commit(); !s.ok()) return s;
  if (!options.quiet) {
    PrintSummary(run.stats, inputs.size());
    if (format == profile::Format::kBolt) {
      std::fprintf(stderr, "perftk cs-etm-decode: BOLT profile of %s\n",
                   text->binary.empty() ? "no binary (no trace in any)" : text->binary.c_str());
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunCsEtmDecode(const CsEtmDecodeOptions& options) {
  absl::StatusOr<cs_etm::ItraceOptions> itrace = cs_etm::ParseItrace(options.itrace);
  if (!itrace.ok()) return UsageError(itrace.status().message());
  // llvm-sample: decoded as autofdo, then written from the binary's DWARF.
  const bool llvm_sample = options.format == "llvm-sample";
  if (llvm_sample && options.dso.empty()) {
    return UsageError("--format=llvm-sample needs --dso: the binary whose profile to write");
  }
  absl::StatusOr<cs_etm::OutputFormat> format =
      ParseFormat(llvm_sample ? std::string("autofdo") : options.format);
  if (!format.ok()) return UsageError(format.status().message());
  if (options.every_taken != 0) {
    if (!itrace->instructions) {
      return UsageError(
          "--every-taken needs i in --itrace (it sets when instruction samples are taken)");
    }
    if (*format != cs_etm::OutputFormat::kPerf && *format != cs_etm::OutputFormat::kScript) {
      return UsageError(
          "--every-taken is for --format=perf or script (profiles count every branch)");
    }
    itrace->taken_period = options.every_taken;
  }
  if (!options.dso.empty() && *format != cs_etm::OutputFormat::kBolt &&
      *format != cs_etm::OutputFormat::kAutoFdo) {
    return UsageError("--dso is for --format=bolt or autofdo");
  }
  if (!options.binary.empty() && *format != cs_etm::OutputFormat::kBolt &&
      *format != cs_etm::OutputFormat::kAutoFdo) {
    return UsageError("--binary is for --format=bolt or autofdo");
  }
  const int jobs = ResolveJobs(options.jobs, kMaxJobs);
  if (jobs < 1 || jobs > kMaxJobs) {
    return UsageError(absl::StrFormat("--jobs=%d: expected 1 to %d", options.jobs, kMaxJobs));
  }
  if (absl::Status s = CheckKernelSource(options.vmlinux, "kernel image (--vmlinux)"); !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckKernelSource(options.kcore, "kcore (--kcore)"); !s.ok()) return s;
  absl::StatusOr<std::vector<std::string>> inputs = ExpandInputs(
      options.inputs.empty() ? std::vector<std::string>{DefaultRecordingInput()} : options.inputs);
  if (!inputs.ok()) return inputs.status();
  const bool profile_format =
      *format == cs_etm::OutputFormat::kAutoFdo || *format == cs_etm::OutputFormat::kBolt;
  if (inputs->size() > 1 && !profile_format) {
    return UsageError(absl::StrCat(
        inputs->size(),
        " inputs: several recordings add up only into one profile "
        "(--format=autofdo, llvm-sample or bolt); decode them one at a time for --format=",
        options.format));
  }
  cs_etm::DecodeOptions decode;
  decode.itrace = *itrace;
  decode.format = *format;
  decode.symfs = options.symfs;
  decode.vmlinux = options.vmlinux;
  decode.kcore = options.kcore;
  decode.jobs = jobs;
  decode.decoder =
      options.decoder == "opencsd" ? cs_etm::DecoderChoice::kOpenCsd : cs_etm::DecoderChoice::kFast;
  decode.dso = options.dso;
  decode.show_progress = !options.quiet;
  if (profile_format) return RunProfileDecode(options, *inputs, decode, llvm_sample);
  // Printed after the run, below any progress line.
  base::WarningList tool_warnings;
  cs_etm::CsEtmDecodeTool tool(decode, tool_warnings);
  absl::Status status;
  if (*format == cs_etm::OutputFormat::kPerf) {
    if (options.output.empty()) {
      return UsageError("--format=perf needs -o OUTPUT (a perf.data, or '-')");
    }
    pipeline::PipelineOptions run_options;
    run_options.input = inputs->front();
    run_options.output = options.output;
    run_options.progress_label = "perftk cs-etm-decode";
    run_options.show_progress = !options.quiet;
    StderrWarnings warnings;
    status = pipeline::RunPipeline(tool, run_options, warnings).status();
  } else {
    // Open (and claim) the text output first, as above.
    absl::StatusOr<std::unique_ptr<base::OutputFile>> out =
        base::OutputFile::Open(options.output.empty() ? "-" : options.output, "output (-o)");
    if (!out.ok()) return out.status();
    pipeline::PipelineOptions run_options;
    run_options.input = inputs->front();
    run_options.progress_label = "perftk cs-etm-decode";
    run_options.show_progress = !options.quiet;
    // Written as it is made: memory does not grow with the trace.
    base::OutputFile& file = **out;
    tool.StreamTextTo([&file](absl::string_view text) { return file.Write(text); });
    StderrWarnings warnings;
    status = pipeline::RunPipeline(tool, run_options, warnings).status();
    if (status.ok()) status = (*out)->Write(tool.text());
    if (status.ok()) status = (*out)->Commit();
  }
  PrintWarnings(tool_warnings.lines());
  if (!status.ok()) return status;
  if (!options.quiet) PrintSummary(tool.stats(), 1);
  return absl::OkStatus();
}

void RegisterCsEtmDecodeCommand(CLI::App& app, absl::Status& outcome) {
  auto options = std::make_shared<CsEtmDecodeOptions>();
  CLI::App* sub = app.add_subcommand(
      "cs-etm-decode",
      "Decode CoreSight trace into samples and AutoFDO/BOLT profiles\n\n"
      "Decodes Arm CoreSight ETM/ETE trace into instruction samples with last-branch\n"
      "stacks (input for AutoFDO and BOLT), each stamped with the pid/tid/EL that\n"
      "retired it.");
  sub->footer(
      "Samples follow perf's --itrace rules for CoreSight: i[N] one instruction sample\n"
      "every N instructions (default 100000; a time unit is accepted and ignored, as\n"
      "perf does), plus one at every trace discontinuity and block end when l is on;\n"
      "l[N] a stack of the last N taken branches (default 64, newest first); b one\n"
      "branch sample per taken branch. A change of thread ends a branch stack: no\n"
      "stack mixes two threads.\n\n"
      "--every-taken N takes the instruction samples at the target of every Nth taken\n"
      "branch instead (their period counts taken branches), each stack holding the\n"
      "branches since the previous sample plus the one that sample ended on. With N\n"
      "below l's size every taken range is in exactly one stack, the way AutoFDO's\n"
      "create_llvm_prof --profiler=perf and perf2bolt -p count them; sampling by\n"
      "instructions over-counts code where branches are sparse (a stack of 64 branches\n"
      "spans more of it). On Intel the same comes from LBR sampled on taken branches.\n"
      "Debian's create_llvm_prof 0.19 maps perf.data addresses as file offsets plus the\n"
      "first PT_LOAD's vaddr: right for GNU ld's layout, wrong for lld's separate\n"
      "read-only segment (link with -Wl,--no-rosegment, or use --format=autofdo).\n\n"
      "Code is read from the files the recording mapped (under --symfs DIR when given:\n"
      "DIR/<recorded path>, then DIR/<file name>), checked against recorded build ids.\n"
      "A missing binary is named in a warning and the trace in it is skipped.\n"
      "Kernel modules (.ko, ET_REL) are read where the kernel's loader puts their\n"
      "text; profiles give module addresses from .text, as simpleperf does. The\n"
      "kernel is read from --vmlinux, or --kcore (e.g. /proc/kcore on the recorded\n"
      "machine: kernel and modules), or a vmlinux found by build id (~/.debug,\n"
      "/usr/lib/debug); without one, kernel trace is skipped with a warning.\n"
      "A recording whose AUX data is missing decodes to no samples, with a warning\n"
      "naming the AUX records without data (exit status 0). Exit status: 0 OK, 1 error,\n"
      "2 usage error.\n\n"
      "The decoder is perftk's own (--decoder=fast, the default): it follows code by\n"
      "blocks, not by instruction, and writes byte for byte what OpenCSD's path writes\n"
      "(--decoder=opencsd, several times slower). ETMv4 and ETE sources in A64 code\n"
      "are its; ETMv3 and PTM sources, AArch32 code and blocks with decode errors go\n"
      "to OpenCSD. The summary line says how many blocks each decoded.\n\n"
      "--jobs N decodes on N threads; the output is byte for byte that of --jobs 1.\n"
      "Every AUX block ends the flow of its trace (perf resets the decoder there), so\n"
      "blocks decode in parallel, also those of one CPU, for autofdo/bolt and for\n"
      "samples with l or without i. Only i without l carries a count from block to\n"
      "block: then raw (TRBE) trace decodes in parallel per CPU, formatted trace\n"
      "(CoreSight frames) per trace id, and a buffer that holds several CPUs' trace (a\n"
      "shared sink) waits for the blocks of those CPUs before it.\n"
      "Records that change the address spaces (MMAP, COMM, FORK...)\n"
      "wait for the blocks before them, so each block sees the maps of its time.\n\n"
      "Formats: perf (a perf.data with the samples, AUX data removed: read it with\n"
      "`perf script -F pid,tid,ip,brstack` or perf2bolt), autofdo (simpleperf's text\n"
      "for create_llvm_prof --profiler=text, which reads only the first binary: --dso\n"
      "picks one), bolt (perf2bolt --pa: the F and B lines of one binary, the only one\n"
      "traced or the one --dso names; its path goes to stderr, its build id is written\n"
      "as ID:ADDRESS on the first line, which perf2bolt reads and ignores; BOLT counts\n"
      "fall-throughs only inside F lines, so each branch not taken also gets an F line\n"
      "to the next instruction), script (lines as\n"
      "`perf script -F pid,tid,ip,brstack` prints them), llvm-sample (LLVM's text\n"
      "sample profile of the binary --dso names, for clang -fprofile-sample-use, made\n"
      "from its DWARF line and inline tables as llvm-profgen does on x86, inlined\n"
      "code in nested profiles). Text goes to -o or stdout.\n\n"
      "Several recordings (-i A -i B, or -i @LIST with one path a line) add up into one\n"
      "profile, for autofdo, llvm-sample and bolt only: each is decoded as alone, and the\n"
      "counts are summed per binary (recorded path and build id: two builds of one path\n"
      "stay apart), so the text is the one `perftk merge-profiles` makes of their\n"
      "profiles.\n"
      "Counts stop at 2^63-1 (the largest perf2bolt reads) with a warning. --jobs N\n"
      "decodes up to N recordings at once. --binary REGEX keeps the binaries whose path\n"
      "it matches; --dso then picks one of them.\n\n"
      "Examples:\n"
      "  perftk cs-etm-decode -i perf.data -o inj.data --itrace=il64\n"
      "  perf script -i inj.data -F pid,tid,ip,brstack\n"
      "  perftk cs-etm-decode -i perf.data --format=autofdo --symfs ./binaries -o prog.afdo\n"
      "  perftk cs-etm-decode -i perf.data --format=bolt --dso prog -o prog.fdata\n"
      "  perf2bolt --pa -p prog.fdata -o prog.bolt.fdata prog\n"
      "  perftk cs-etm-decode -i perf.data --itrace=il64 --every-taken 63 -o lbr.data\n"
      "  create_llvm_prof --profiler=perf --binary=prog --profile=lbr.data --out=prog.afdo\n"
      "  perftk cs-etm-decode -i perf.data --itrace=i100il64 --format=script\n"
      "  perftk cs-etm-decode -i perf.data --format=autofdo --jobs 2 -o prog.afdo\n"
      "  perftk cs-etm-decode -i @recordings.txt --format=autofdo --binary '/prog$' --jobs 2 -o "
      "all.afdo");
  sub->add_option(
         "-i,--input", options->inputs,
         "Input perf.data ('-' for stdin; default: '-' when stdin is a pipe, as perf script "
         "takes it, else perf.data); repeat it, or @FILE for the paths FILE lists (one per "
         "line), to add several recordings into one profile (autofdo, llvm-sample, bolt)")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  sub->add_option("-o,--output", options->output,
                  "Output: perf.data ('-' for a pipe) with --format=perf, else a text file "
                  "(default stdout)");
  sub->add_option("--itrace", options->itrace, "What to synthesize, perf's syntax: i[N], l[N], b")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](const std::string& text) {
            absl::StatusOr<cs_etm::ItraceOptions> parsed = cs_etm::ParseItrace(text);
            return parsed.ok() ? std::string() : std::string(parsed.status().message());
          },
          "i[N]l[N]b", "itrace"));
  sub->add_option("--every-taken", options->every_taken,
                  "Instruction samples every N taken branches instead of every N instructions "
                  "(perf, script; see below)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 32));
  sub->add_option("--format", options->format, "Output format")
      ->capture_default_str()
      ->check(CLI::IsMember({"perf", "autofdo", "bolt", "script", "llvm-sample"}));
  sub->add_option("--symfs", options->symfs, "Look for binaries under this directory");
  AddBuildIdDirOption(*sub);
  sub->add_option("--vmlinux", options->vmlinux,
                  "Kernel image: a vmlinux with symbols (default: found by build id)");
  sub->add_option("--kcore", options->kcore,
                  "Read the kernel and its modules from this kcore file (/proc/kcore on the "
                  "recorded machine)");
  sub->add_option("--dso", options->dso,
                  "Only this binary's profile (recorded path or file name; bolt, autofdo)");
  sub->add_option("--binary", options->binary,
                  "Only the binaries whose recorded path this regular expression matches "
                  "(ECMAScript, anywhere in the path; bolt, autofdo)");
  AddJobsOption(*sub, &options->jobs, kMaxJobs, "Decode threads (output identical to --jobs 1)");
  sub->add_option("--decoder", options->decoder,
                  "fast: perftk's decoder, OpenCSD for the blocks it does not follow; opencsd: "
                  "OpenCSD alone (the same output, slower)")
      ->capture_default_str()
      ->check(CLI::IsMember({"fast", "opencsd"}));
  sub->add_flag("-q,--quiet", options->quiet,
                "No progress or summary on stderr (warnings and errors still)");
  sub->callback([options, &outcome] { outcome = RunCsEtmDecode(*options); });
}

}  // namespace perftk::cli
