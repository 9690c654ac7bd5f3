// qemu-user log lines (qemu_log.h), as qemu-aarch64 7.2 writes them with
// -singlestep -d exec,nochain -strace: copied from a real log.
#include "qemu_log.h"

#include "gtest/gtest.h"

namespace perftk::etm_gen {
namespace {

using Kind = QemuLine::Kind;

TEST(QemuLog, ExecLineGivesTheGuestPc) {
  QemuLine line = ParseQemuLine(
      "Trace 0: 0x7fb04b400100 [0000000001009331/000000550081bc40/00000001/00000201] ");
  EXPECT_EQ(line.kind, Kind::kPc);
  EXPECT_EQ(line.pc, 0x550081bc40u);
  EXPECT_EQ(line.cpu, 0u);
  EXPECT_EQ(line.host, 0x7fb04b400100u);
  // Another thread's vCPU.
  line = ParseQemuLine(
      "Trace 12: 0x7fd6444aa4c0 [0000000001009331/0000005500947e78/00000001/00080201] ");
  EXPECT_EQ(line.kind, Kind::kPc);
  EXPECT_EQ(line.cpu, 12u);
  EXPECT_EQ(line.pc, 0x5500947e78u);
  // With a symbol name after the brackets (qemu adds one when it has it).
  line = ParseQemuLine("Trace 0: 0x7f00 [00000000/0000000000400580/00000000/ff000000] main");
  EXPECT_EQ(line.kind, Kind::kPc);
  EXPECT_EQ(line.pc, 0x400580u);
  EXPECT_EQ(ParseQemuLine("Trace 0: 0x7f00 [00000000/00004zz0/0]").kind, Kind::kOther);
  EXPECT_EQ(ParseQemuLine("Trace 0: 0x7f00").kind, Kind::kOther);
  EXPECT_EQ(ParseQemuLine("Trace x: 0x7f00 [0/400580/0]").kind, Kind::kOther);
}

TEST(QemuLog, StoppedBlockIsTakenBack) {
  QemuLine line =
      ParseQemuLine("Stopped execution of TB chain before 0x7fd6444aa4c0 [0000005500947e78] ");
  EXPECT_EQ(line.kind, Kind::kStopped);
  EXPECT_EQ(line.host, 0x7fd6444aa4c0u);
  EXPECT_EQ(line.pc, 0x5500947e78u);
  line =
      ParseQemuLine("Stopped execution of TB chain before 0x7f6fda8b53c0 [000000000040085c] run");
  EXPECT_EQ(line.kind, Kind::kStopped);
  EXPECT_EQ(line.pc, 0x40085cu);
  EXPECT_EQ(ParseQemuLine("Stopped execution of TB chain before 0x7f [zz]").kind, Kind::kOther);
  EXPECT_EQ(ParseQemuLine("Stopped execution of TB chain before 0x7f [40085c").kind, Kind::kOther);
}

TEST(QemuLog, OpenCloseAndExecutableMmap) {
  QemuLine open = ParseQemuLine("5158 openat(AT_FDCWD,\"/lib/libc.so.6\",O_RDONLY|O_CLOEXEC) = 4");
  EXPECT_EQ(open.kind, Kind::kOpen);
  EXPECT_EQ(open.pid, 5158);
  EXPECT_EQ(open.path, "/lib/libc.so.6");
  EXPECT_EQ(open.fd, 4);
  QemuLine missing = ParseQemuLine(
      "5158 openat(AT_FDCWD,\"/lib/tls/libc.so.6\",O_RDONLY|O_CLOEXEC) = -1 errno=2 (No such "
      "file or directory)");
  EXPECT_EQ(missing.kind, Kind::kOpen);
  EXPECT_LT(missing.fd, 0);

  QemuLine map = ParseQemuLine(
      "5158 mmap(0x0000005500860000,1761424,PROT_EXEC|PROT_READ,MAP_PRIVATE|MAP_DENYWRITE|"
      "MAP_FIXED,4,0) = 0x0000005500860000");
  EXPECT_EQ(map.kind, Kind::kMmap);
  EXPECT_EQ(map.address, 0x5500860000u);
  EXPECT_EQ(map.length, 1761424u);
  EXPECT_EQ(map.fd, 4);
  EXPECT_EQ(map.offset, 0u);
  EXPECT_TRUE(map.exec);
  EXPECT_FALSE(map.failed);

  QemuLine data = ParseQemuLine(
      "5158 mmap(0x00000055009fc000,24576,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_DENYWRITE|"
      "MAP_FIXED,4,0x18c000) = 0x00000055009fc000");
  EXPECT_EQ(data.kind, Kind::kMmap);
  EXPECT_EQ(data.offset, 0x18c000u);
  EXPECT_FALSE(data.exec);
  QemuLine anonymous = ParseQemuLine(
      "5158 mmap(NULL,8192,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0) = "
      "0x0000005500850000");
  EXPECT_EQ(anonymous.fd, -1);
  EXPECT_EQ(anonymous.address, 0x5500850000u);
  QemuLine refused = ParseQemuLine(
      "5158 mmap(NULL,8192,PROT_EXEC,MAP_PRIVATE,3,0) = -1 errno=12 (Cannot "
      "allocate memory)");
  EXPECT_EQ(refused.kind, Kind::kMmap);
  EXPECT_TRUE(refused.failed);

  QemuLine close = ParseQemuLine("5158 close(4) = 0");
  EXPECT_EQ(close.kind, Kind::kClose);
  EXPECT_EQ(close.fd, 4);
}

TEST(QemuLog, TranslatedBlockListing) {
  EXPECT_EQ(ParseQemuLine("IN: ").kind, Kind::kBlockStart);
  EXPECT_EQ(ParseQemuLine("IN: main").kind, Kind::kBlockStart);
  QemuLine insn = ParseQemuLine("0x550081bc50:  97ffeeac  bl       #0x5500817700");
  EXPECT_EQ(insn.kind, Kind::kBlockInstruction);
  EXPECT_EQ(insn.pc, 0x550081bc50u);
  EXPECT_EQ(insn.word, 0x97ffeeacu);
  insn = ParseQemuLine("0x00000000004005d0:  d503201f  nop      ");
  EXPECT_EQ(insn.kind, Kind::kBlockInstruction);
  EXPECT_EQ(insn.pc, 0x4005d0u);
  EXPECT_EQ(insn.word, 0xd503201fu);
  // Not an instruction line: a short word, a word run into the text, no word.
  EXPECT_EQ(ParseQemuLine("0x4005d0:  d50320  nop").kind, Kind::kOther);
  EXPECT_EQ(ParseQemuLine("0x4005d0:  d503201fa nop").kind, Kind::kOther);
  EXPECT_EQ(ParseQemuLine("0x4005d0: nop").kind, Kind::kOther);
  EXPECT_EQ(ParseQemuLine("INX").kind, Kind::kOther);
}

TEST(QemuLog, OtherLinesAreOther) {
  for (const char* text :
       {"", "guest_base  (nil)", "start_code  0x0000000000400000",
        "5158 brk(NULL) = 0x0000000000421000", "5158 munmap(0x0000005500852000,57344) = 0",
        // -d page appends its dump to an unfinished strace line
        "5158 mmap(NULL,47891,PROT_READ,MAP_PRIVATE,4,0)page layout changed",
        "2584\t30428895\tTHE,QUICK"}) {
    EXPECT_EQ(ParseQemuLine(text).kind, Kind::kOther) << text;
  }
}

}  // namespace
}  // namespace perftk::etm_gen
