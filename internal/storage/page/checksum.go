package page

import "hash/crc32"

// Page checksums. tidal's checksum is CRC-32C (hardware accelerated)
// folded to 16 bits and mixed with the block number so a page written to
// the wrong place is caught too; like PostgreSQL's it is never 0, and it is
// computed on a private copy when hint bits may change concurrently.
// All-zero (never initialised) pages carry no checksum.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ComputeChecksum returns the checksum of p as block blk.
func ComputeChecksum(p Page, blk BlockNumber) uint16 {
	c := crc32.Update(0, castagnoli, p[:8])
	c = crc32.Update(c, castagnoli, []byte{0, 0})
	c = crc32.Update(c, castagnoli, p[10:Size])
	c ^= blk * 0x9E3779B1
	return uint16(c%65535) + 1
}

// SetChecksumInplace stamps p's checksum for block blk (PageSetChecksumInplace).
// Every writer that bypasses the buffer pool must call it before writing.
func SetChecksumInplace(p Page, blk BlockNumber) {
	if p.IsNew() {
		return
	}
	p.SetChecksum(ComputeChecksum(p, blk))
}

// VerifyChecksum checks a page just read from disk (PageIsVerified): a new
// page must be all zeroes, any other must carry its checksum.
func VerifyChecksum(p Page, blk BlockNumber) (ok bool, expected, got uint16) {
	if p.IsNew() {
		for _, b := range p[:Size] {
			if b != 0 {
				return false, 0, 0
			}
		}
		return true, 0, 0
	}
	c := ComputeChecksum(p, blk)
	return p.Checksum() == c, p.Checksum(), c
}
