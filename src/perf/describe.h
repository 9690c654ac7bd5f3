// A record, attr or feature as a list of named fields, for listings (the
// text and JSON forms of `perftk dump`). Decodes without judging: a record
// that cannot be decoded gets an "error" field, never a failure.
#ifndef PERFTK_PERF_DESCRIBE_H_
#define PERFTK_PERF_DESCRIBE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "perf/header.h"
#include "perf/record.h"

namespace perftk::perf {

struct Field {
  enum class Kind { kNumber, kAddress, kText, kAddressList };
  std::string name;
  Kind kind = Kind::kNumber;
  uint64_t number = 0;
  std::string text;
  std::vector<uint64_t> list;

  static Field Number(std::string name, uint64_t value);
  static Field Address(std::string name, uint64_t value);
  static Field Text(std::string name, std::string value);
  static Field AddressList(std::string name, std::vector<uint64_t> values);
};

std::vector<Field> DescribeRecord(const Record& record, const EventList& events);
std::vector<Field> DescribeAttr(const EventAttr& attr, size_t index);
// Known features decoded (strings, nrcpus, cmdline, build ids), others by size.
std::vector<Field> DescribeFeature(int feature, const FeatureSet& features);

// "IP|TID|TIME|PERIOD"
std::string SampleTypeNames(uint64_t sample_type);

}  // namespace perftk::perf

#endif  // PERFTK_PERF_DESCRIBE_H_
