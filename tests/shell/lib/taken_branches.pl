#!/usr/bin/perl
# Reads qemu-aarch64's `-singlestep -d exec,nochain` log on stdin (one
# "Trace N: 0xHOST [FLAGS/PC/...]" line per executed instruction) and prints
# "TAKEN EXECUTED": how many instructions ran at pcs inside the ranges given
# as arguments (FIRST-END in hex, END excluded), and how many of those were
# followed by another instruction than the next one (pc + 4): taken branches.
use strict;
use warnings;
no warnings 'portable';    # 64-bit hex

my @ranges = map { [map { hex } split /-/] } @ARGV;
die "usage: taken_branches.pl FIRST-END...\n" unless @ranges;
my ($taken, $executed, $inside, $prev) = (0, 0, 0, 0);
while (<STDIN>) {
  next unless m{^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/};
  my $pc = hex $1;
  $taken++ if $inside && $pc != $prev + 4;
  $prev = $pc;
  $inside = 0;
  for my $r (@ranges) {
    if ($pc >= $r->[0] && $pc < $r->[1]) { $inside = 1; last; }
  }
  $executed++ if $inside;
}
print "$taken $executed\n";
