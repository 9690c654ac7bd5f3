#include "jit/file_creator.h"

#include <unistd.h>

#include <utility>

#include "elf/jit_elf_writer.h"

namespace perftk::jit {

FileCreator::FileCreator(bool threaded) : threaded_(threaded) {
  if (threaded_) thread_ = std::thread([this] { CreateUntilStopped(); });
}

FileCreator::~FileCreator() {
  if (!threaded_) return;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
  absl::MutexLock lock(&mu_);
  for (Created& created : created_) {
    if (created.fd < 0) continue;
    close(created.fd);
    unlink(created.path.c_str());
  }
}

void FileCreator::Request(std::string path) {
  ++requested_;
  if (!threaded_) {
    inline_requests_.push_back(std::move(path));
    return;
  }
  absl::MutexLock lock(&mu_);
  requests_.push_back(std::move(path));
}

absl::StatusOr<int> FileCreator::Take() {
  ++taken_;
  if (!threaded_) {
    std::string path = std::move(inline_requests_.front());
    inline_requests_.pop_front();
    return elf::CreateForWriting(path);
  }
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](std::deque<Created>* created) { return !created->empty(); }, &created_));
  Created created = std::move(created_.front());
  created_.pop_front();
  if (created.fd < 0) return created.error;
  return created.fd;
}

void FileCreator::CreateUntilStopped() {
  auto has_work = +[](FileCreator* self) {
    return self->stopping_ || !self->requests_.empty();
  };
  while (true) {
    std::string path;
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(has_work, this));
      if (stopping_) return;
      path = std::move(requests_.front());
      requests_.pop_front();
    }
    absl::StatusOr<int> fd = elf::CreateForWriting(path);
    Created created{std::move(path), fd.ok() ? *fd : -1, fd.status()};
    absl::MutexLock lock(&mu_);
    created_.push_back(std::move(created));
  }
}

}  // namespace perftk::jit
