package buffer

import (
	"syscall"

	"github.com/tidal-db/tidal/internal/storage/page"
	"github.com/tidal-db/tidal/internal/storage/smgr"
)

// The frames live outside Go's heap, in an anonymous mapping, as
// PostgreSQL's shared buffers live outside its backends' memory
// contexts. Go's collector paces itself by the live heap: with the frames
// on the heap, shared_buffers counted as live data, so a query could pile
// up as much garbage as shared_buffers (128 MB by default) before the
// next collection, and the server's resident memory grew by that much
// during any big query. Outside the heap the collector sees only the
// executor's own data and keeps the garbage near it. The mapping is
// page-aligned, which O_DIRECT's alignment (smgr.DirectAlign) divides.

// frameMemory returns n frames of zeroed memory, mapped outside the heap
// (on the heap, aligned, if the mapping is refused).
func frameMemory(n int) (mem []byte, mapped bool) {
	size := n * page.Size
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		return smgr.AlignedBlocks(n), false
	}
	return b[:size:size], true
}

// Discard gives the frames' memory back to the operating system when the
// engine closes. The mapping itself stays (a page slice some straggler
// still holds reads zeros rather than faulting); its address space is
// cheap and its pages are no longer resident.
func (p *Pool) Discard() {
	if p.mapped {
		syscall.Madvise(p.mem, syscall.MADV_DONTNEED)
	}
}
