package vacuum

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is CLOCK_THREAD_CPUTIME_ID (Linux).
const clockThreadCPUTime = 3

// threadCPU reads the calling OS thread's CPU time. The caller must be
// locked to its thread (runtime.LockOSThread), or the clock may belong
// to whichever thread the goroutine happens to run on.
func threadCPU() (time.Duration, bool) {
	if runtime.GOOS != "linux" {
		return 0, false
	}
	var ts syscall.Timespec
	_, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// ThreadRusage is the calling OS thread's user and system CPU time, for
// callers locked to their thread (an autovacuum worker's ANALYZE).
func ThreadRusage() (user, sys time.Duration) {
	r := rusage()
	return r[0], r[1]
}
