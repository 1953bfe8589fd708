// Package rawsys makes, on Linux, the system calls of a written line's
// way from the inotify event to the subscriber's socket without telling
// the Go runtime: where a call cannot wait, and the journal's write to a
// local file under a Guard that stops it after one slow call.
//
// Why: when every processor is idle, the runtime's monitor thread
// (sysmon) sleeps until the next timer, and the next system call made
// through the syscall package, os or net (entersyscall) wakes it; it then
// looks again every 20 µs until it finds every processor idle, and sleeps
// again (runtime/proc.go: sysmon, reentersyscall). A paced line arrives on
// an idle bridge, so each one woke sysmon: about one thread switch in
// every 2.3 a line costs, and CPU with it. A raw call (syscall.RawSyscall)
// does not enter the runtime, so sysmon sleeps on.
//
// The price: a goroutine keeps its processor through a raw call, so if
// the call waits, the runtime can neither hand that processor to another
// goroutine nor stop the world: a garbage collection, and with it every
// goroutine of the bridge, waits until the call returns. So a call is raw
// only where the kernel does not make it wait:
//
//   - Read and Write of a non-blocking descriptor (inotify once the poller
//     said it is readable, a socket): they return EAGAIN instead, and the
//     caller waits in the poller as os and net do.
//   - Fstat and PreadNoWait (timed, below) of a regular file that RawReads accepted: on
//     a local filesystem (localFS; a network or FUSE one may wait on a
//     server for any call, fstat included), opened O_NOATIME (a read that
//     updates the access time dirties the inode, which on ext4 or XFS
//     takes a journal or log reservation that can wait for the disk). A
//     local filesystem's fstat reads the inode in memory. PreadNoWait is
//     preadv2 with RWF_NOWAIT: the kernel copies what is in the page cache
//     and returns EAGAIN rather than read the disk or wait for a lock
//     (XFS's inode lock, held by a writer that may itself be throttled),
//     and the caller then reads the rest with an ordinary pread. A record
//     just written is in the page cache, so its read returns at once.
//
// Raw under a guard: write(2) of a regular file that RawWrites accepted
// (the bridge's journal lines), on a local filesystem not mounted sync.
// A buffered write to a local disk usually returns in microseconds from
// the page cache, but it may sleep: in balance_dirty_pages (up to 200 ms
// a pause, again and again while the disk is behind, as when a build or a
// copy floods it), for a page under writeback (stable pages), for the
// filesystem's journal or log space to update the file's times, or, on a
// failing disk, for as long as the disk hangs; and there is no RWF_NOWAIT
// that helps (ext4 refuses it for buffered writes, XFS answers EAGAIN
// whenever the file's times are to change, which is every write). So
// every raw call on a regular file, the write and PreadNoWait (which
// may still fault in a swapped-out buffer), goes through a Guard, which
// times it. A call that took longer than SlowCall (2 ms: it slept in the
// kernel, or the machine's other work preempted it) is a stall. One
// stall over MaxStall (25 ms), or stalls coming faster than a budget of
// 50 ms that comes back at 1 ms a second, stop raw calls on files for the
// rest of the process, and the bridge logs it once.
//
// Such stalls do happen: on the machine the bridge is developed on (ext4,
// its disk shared with other work) a raw journal write slept 4 to 17 ms
// about once in two paced bench runs of 30000 lines. A guard that stopped
// at the first stall lost the saving within seconds there; the budget
// lets such rare stalls be.
//
// The residual risk, and why it is accepted: a stall holds its processor,
// so a garbage collection that begins meanwhile waits for it, with every
// goroutine of the bridge; with an ordinary write only the line's own
// goroutine would wait (and its line is late either way). The budget
// bounds what that can cost: at most 25 ms at once and about a thousandth
// of the time over minutes, before the bridge goes back to ordinary
// calls. A disk that hangs outright still freezes the whole bridge, at
// its next collection, until the call returns; its journal writes would
// hang the bridge's streams anyway. In return an idle bridge's line no
// longer wakes sysmon for its journal write: about 30 µs of CPU a line, a
// third of the bridge's CPU while agents work (issue 29's paced bench:
// 87-91 µs a line with only the reads and socket raw, 56-64 µs with the
// journal's write too; 2.2 thread switches a line down to 1.1).
//
// Elsewhere (build tags) these are the syscall package's ordinary calls,
// and RawReads accepts no file.
package rawsys
