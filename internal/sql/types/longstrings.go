package types

import "strings"

// fnLong registers an immutable function that can run long on big
// arguments: it gets the session's settings to check for interrupts.
func fnLong(name string, args []Type, ret Type, f func(st *Settings, a []Datum) (Datum, error)) {
	addFunc(name, &Func{Args: args, Ret: ret, Strict: true, FnWith: f, Fn: func(a []Datum) (Datum, error) { return f(nil, a) }})
}

// checkEveryBytes is how much output a string function builds between
// interrupt checks (a power of two).
const checkEveryBytes = 1 << 20

// checkInterrupts is CHECK_FOR_INTERRUPTS for functions.
func (st *Settings) checkInterrupts() error {
	if st == nil {
		return nil
	}
	return st.Interrupts.Check()
}

// appendRepeated writes count copies of s to b a chunk at a time,
// checking for interrupts between chunks (repeat, lpad, rpad).
func appendRepeated(st *Settings, b *strings.Builder, s string, count int) error {
	if count <= 0 || s == "" {
		return nil
	}
	per := max(1, checkEveryBytes/len(s))
	chunk := strings.Repeat(s, min(per, count))
	for count > 0 {
		if err := st.checkInterrupts(); err != nil {
			return err
		}
		k := min(per, count)
		b.WriteString(chunk[:k*len(s)])
		count -= k
	}
	return nil
}

// replaceAll is strings.ReplaceAll that checks for interrupts as the
// result grows (replace).
func replaceAll(st *Settings, s, old, repl string) (string, error) {
	n := strings.Count(s, old)
	if n == 0 {
		return s, nil
	}
	var b strings.Builder
	b.Grow(len(s) + n*(len(repl)-len(old)))
	written := 0
	for {
		j := strings.Index(s, old)
		if j < 0 {
			break
		}
		b.WriteString(s[:j])
		b.WriteString(repl)
		s = s[j+len(old):]
		if written += j + len(repl); written >= checkEveryBytes {
			written = 0
			if err := st.checkInterrupts(); err != nil {
				return "", err
			}
		}
	}
	b.WriteString(s)
	return b.String(), nil
}
