package pgerr

import "unsafe"

// AddContext appends a CONTEXT line to e.Where (lines innermost first).
// An error passing up through thousands of nested calls gets a line per
// call: the lines are appended to a buffer that grows by doubling, so
// the whole is linear, not quadratic, in the number of lines.
func (e *Error) AddContext(line string) {
	if e.Where == "" {
		e.Where = line
		return
	}
	owned := e.ctxOwner == e && len(e.ctx) == len(e.Where) && len(e.ctx) > 0 &&
		unsafe.StringData(e.Where) == unsafe.SliceData(e.ctx)
	if !owned {
		// Where was set directly, or e is a copy sharing another
		// Error's buffer: start a buffer of e's own.
		e.ctx = append(make([]byte, 0, 2*(len(e.Where)+len(line)+1)), e.Where...)
		e.ctxOwner = e
	}
	e.ctx = append(e.ctx, '\n')
	e.ctx = append(e.ctx, line...)
	e.Where = unsafe.String(unsafe.SliceData(e.ctx), len(e.ctx))
}
