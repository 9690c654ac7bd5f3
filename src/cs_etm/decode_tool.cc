#include "cs_etm/decode_tool.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cs_etm/lane_profiles.h"
#include "cs_etm/opencsd_guard.h"
#include "cs_etm/profile_text.h"
#include "machine/record_events.h"
#include "perf/features.h"

namespace perftk::cs_etm {

CsEtmDecodeTool::CsEtmDecodeTool(DecodeOptions options, base::WarningSink& warnings)
    : options_(std::move(options)), warnings_(warnings) {
  QuietOpenCsdErrorLog();
}

CsEtmDecodeTool::~CsEtmDecodeTool() {
  scheduler_.reset();  // no lane runs once it is gone
}

absl::Status CsEtmDecodeTool::Begin(perf::Header& header) {
  reader_ = std::make_unique<TraceRecordReader>(header.events, warnings_);
  LoadBuildIds(header);
  images_ = std::make_unique<BinaryImages>(options_.symfs, build_ids_,
                                           KernelSources{options_.vmlinux, options_.kcore});
  absl::StatusOr<SampleEncoder> encoder =
      SampleEncoder::Create(options_.format, options_.itrace, header);
  if (!encoder.ok()) return encoder.status();
  encoder_ = std::make_unique<SampleEncoder>(*std::move(encoder));
  scheduler_ = std::make_unique<BlockScheduler>(
      options_, model(), *images_, *encoder_, build_ids_,
      [this](BlockJob& job, pipeline::RecordSink& out) { return WriteBlock(job, out); });
  return absl::OkStatus();
}

void CsEtmDecodeTool::LoadBuildIds(const perf::Header& header) {
  absl::StatusOr<perf::BuildIdsByPath> build_ids = perf::ReadBuildIdsByPath(header.features);
  if (build_ids.ok()) {
    build_ids_ = *std::move(build_ids);
  } else if (header.features.count(HEADER_BUILD_ID)) {
    warnings_.Warn(absl::StrCat("BUILD_ID feature unreadable: ", build_ids.status().message()));
  }
}

void CsEtmDecodeTool::Abandon() {
  if (scheduler_ != nullptr) scheduler_->Abandon();
}

uint64_t CsEtmDecodeTool::OldestViewHeld() const {
  return scheduler_ != nullptr ? scheduler_->OldestViewHeld() : UINT64_MAX;
}

absl::Status CsEtmDecodeTool::BeforeModelChange(const perf::Record& record,
                                                pipeline::RecordSink& out) {
  (void)record;
  return scheduler_->BeforeModelChange(out);
}

absl::Status CsEtmDecodeTool::Process(const perf::Record& record, pipeline::RecordSink& out) {
  switch (record.type()) {
    case PERF_RECORD_AUXTRACE_INFO:
      return reader_->ReadAuxtraceInfo(record);
    case PERF_RECORD_AUXTRACE:
      return SubmitBlocks(record, out);
    case PERF_RECORD_AUX:
      return reader_->ReadAux(record);
    case PERF_RECORD_ITRACE_START:
      reader_->ReadItraceStart(record);
      return absl::OkStatus();
    case PERF_RECORD_AUX_OUTPUT_HW_ID:
      reader_->ReadHwId(record);
      return absl::OkStatus();
    case PERF_RECORD_AUXTRACE_ERROR:
      warnings_.Warn(absl::StrFormat("the recording has an AUXTRACE_ERROR record at offset %#x",
                                     record.file_offset()));
      return absl::OkStatus();
    case PERF_RECORD_SWITCH:
    case PERF_RECORD_SWITCH_CPU_WIDE:
      reader_->ReadSwitch(record);
      break;
    case PERF_RECORD_EXIT:
      break;
    case PERF_RECORD_SAMPLE:
      if (encoder_->changed_input_attrs()) {
        return absl::UnimplementedError(absl::StrFormat(
            "sample at offset %#x: the input's events identify samples by PERF_SAMPLE_ID and "
            "have samples of their own, so the synthesized events cannot be added to them",
            record.file_offset()));
      }
      break;
    default:  // the model has taken what changes it
      break;
  }
  if (options_.format != OutputFormat::kPerf) return absl::OkStatus();
  absl::Status passed = scheduler_->Pass(record, out);
  // Written, with every block before it, once none waits.
  if (passed.ok() && scheduler_->idle()) ReportDone(record.file_offset());
  return passed;
}

absl::Status CsEtmDecodeTool::SubmitBlocks(const perf::Record& auxtrace,
                                           pipeline::RecordSink& out) {
  absl::StatusOr<std::vector<TraceBlock>> blocks = reader_->ReadAuxtrace(auxtrace);
  if (!blocks.ok()) return blocks.status();
  for (const TraceBlock& block : *blocks) {
    ++stats_.blocks;
    stats_.trace_bytes += block.data.size();
    absl::Status s = scheduler_->Submit(block, auxtrace.lasting(), reader_->setup(), out);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status CsEtmDecodeTool::WriteBlock(BlockJob& job, pipeline::RecordSink& out) {
  // Blocks are written in order, on the pipeline's thread.
  ReportDone(job.block.file_offset + job.block.data.size());
  stats_.packets += job.stats.packets;
  stats_.samples += job.stats.samples;
  stats_.instruction_samples += job.stats.instruction_samples;
  stats_.branch_samples += job.stats.branch_samples;
  stats_.decoder_waits += job.stats.decoder_waits;
  stats_.fast_blocks += job.stats.fast_blocks;
  stats_.opencsd_blocks += job.stats.opencsd_blocks;
  if (job.errors > 0) {
    SourceErrors& errors = errors_[job.source];
    if (errors.count == 0) errors.first = job.first_error;
    errors.count += job.errors;
  }
  if (!job.status.ok()) return job.status;
  if (options_.format == OutputFormat::kPerf) {
    return job.samples.ForEachPiece([&out](absl::string_view records) {
      return perf::ForEachRecordIn(base::AsBytes(records.data(), records.size()),
                                   [&out](const perf::Record& record) { return out.Emit(record); });
    });
  }
  return job.samples.ForEachPiece([this](absl::string_view text) {
    if (text_sink_) return text_sink_(text);
    text_.append(text.data(), text.size());
    return absl::OkStatus();
  });
}

absl::Status CsEtmDecodeTool::End(pipeline::RecordSink& out, perf::FeatureSet& features) {
  (void)features;
  if (absl::Status s = scheduler_->WriteAll(out); !s.ok()) return s;
  for (std::string& note : reader_->Finish()) warnings_.Warn(std::move(note));
  for (const auto& [source, errors] : errors_) {
    warnings_.Warn(
        absl::StrFormat("%d trace decode errors; the first: %s", errors.count, errors.first));
  }
  // Binaries are first looked up by whichever lane gets there first.
  std::vector<std::string> image_warnings = images_->TakeWarnings();
  std::sort(image_warnings.begin(), image_warnings.end());
  for (std::string& warning : image_warnings) warnings_.Warn(std::move(warning));
  if (absl::Status failed = images_->failure(); !failed.ok()) return failed;
  if (!reader_->saw_trace_info()) {
    return absl::InvalidArgumentError(
        "the recording has no CoreSight AUXTRACE_INFO record: nothing to decode");
  }
  if (!IsProfile(options_.format)) return absl::OkStatus();
  const profile::Format format = options_.format == OutputFormat::kAutoFdo
                                     ? profile::Format::kAutoFdo
                                     : profile::Format::kBolt;
  profile_ = AddUpLaneProfiles(scheduler_->Profiles(), build_ids_, *images_, format);
  if (!options_.profile_text) return absl::OkStatus();
  absl::StatusOr<ProfileText> text = WriteProfileText(profile_, format, options_.dso);
  if (!text.ok()) return text.status();
  text_ = std::move(text->text);
  bolt_binary_ = std::move(text->binary);
  return absl::OkStatus();
}

}  // namespace perftk::cs_etm
