package types

import "strconv"

// jsonpath_out: PostgreSQL's printJsonPathItem — keys always quoted,
// operators spaced, parentheses where an operand's priority is not
// higher than its operator's (and around the whole of a top-level
// operation).

func jpPriority(n *jpNode) int {
	switch n.kind {
	case jpOr:
		return 0
	case jpAnd:
		return 1
	case jpCmp, jpStartsWith:
		return 2
	case jpArith:
		if n.op == "+" || n.op == "-" {
			return 3
		}
		return 4
	case jpUnary:
		return 5
	}
	return 6
}

func (p *jsonPath) String() string {
	var b []byte
	if p.strict {
		b = append(b, "strict "...)
	}
	return string(appendJPNode(b, p.root, false, true))
}

func appendJPOperand(dst []byte, op, arg *jpNode) []byte {
	return appendJPNode(dst, arg, false, jpPriority(arg) <= jpPriority(op))
}

func appendJPNode(dst []byte, n *jpNode, inKey, brackets bool) []byte {
	switch n.kind {
	case jpNull:
		dst = append(dst, "null"...)
	case jpKey:
		if inKey {
			dst = append(dst, '.')
		}
		dst = appendJSONString(dst, n.str)
	case jpString:
		dst = appendJSONString(dst, n.str)
	case jpVar:
		dst = appendJSONString(append(dst, '$'), n.str)
	case jpNumeric:
		if n.next != nil {
			dst = append(dst, '(')
		}
		dst = append(dst, n.str...)
		if n.next != nil {
			dst = append(dst, ')')
		}
	case jpBool:
		dst = strconv.AppendBool(dst, n.b)
	case jpAnd, jpOr, jpCmp, jpStartsWith, jpArith:
		name := n.op
		switch n.kind {
		case jpAnd:
			name = "&&"
		case jpOr:
			name = "||"
		case jpStartsWith:
			name = "starts with"
		}
		if brackets {
			dst = append(dst, '(')
		}
		dst = appendJPOperand(dst, n, n.left)
		dst = append(append(append(dst, ' '), name...), ' ')
		dst = appendJPOperand(dst, n, n.right)
		if brackets {
			dst = append(dst, ')')
		}
	case jpLikeRegex:
		if brackets {
			dst = append(dst, '(')
		}
		dst = appendJPOperand(dst, n, n.left)
		dst = append(dst, " like_regex "...)
		dst = appendJSONString(dst, n.str)
		if n.flags != "" {
			dst = append(append(append(dst, " flag \""...), n.flags...), '"')
		}
		if brackets {
			dst = append(dst, ')')
		}
	case jpUnary:
		if brackets {
			dst = append(dst, '(')
		}
		dst = append(dst, n.op...)
		dst = appendJPOperand(dst, n, n.left)
		if brackets {
			dst = append(dst, ')')
		}
	case jpFilter:
		dst = append(appendJPNode(append(dst, "?("...), n.left, false, false), ')')
	case jpNot:
		dst = append(appendJPNode(append(dst, "!("...), n.left, false, false), ')')
	case jpIsUnknown:
		dst = append(appendJPNode(append(dst, '('), n.left, false, false), ") is unknown"...)
	case jpExists:
		dst = append(appendJPNode(append(dst, "exists ("...), n.left, false, false), ')')
	case jpCurrent:
		dst = append(dst, '@')
	case jpRoot:
		dst = append(dst, '$')
	case jpLast:
		dst = append(dst, "last"...)
	case jpAnyArray:
		dst = append(dst, "[*]"...)
	case jpAnyKey:
		if inKey {
			dst = append(dst, '.')
		}
		dst = append(dst, '*')
	case jpIndexArray:
		dst = append(dst, '[')
		for i, s := range n.subs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJPNode(dst, s[0], false, false)
			if s[1] != nil {
				dst = appendJPNode(append(dst, " to "...), s[1], false, false)
			}
		}
		dst = append(dst, ']')
	case jpAny:
		if inKey {
			dst = append(dst, '.')
		}
		dst = appendJPAnyLevels(dst, n.lo, n.hi)
	case jpMethod:
		dst = append(append(append(dst, '.'), n.op...), "()"...)
	case jpDatetime:
		dst = append(dst, ".datetime("...)
		if n.left != nil {
			dst = appendJPNode(dst, n.left, false, false)
		}
		dst = append(dst, ')')
	}
	if n.next != nil {
		dst = appendJPNode(dst, n.next, true, true)
	}
	return dst
}

func appendJPAnyLevels(dst []byte, lo, hi int64) []byte {
	level := func(v int64) string {
		if v == jpAnyMax {
			return "last"
		}
		return strconv.FormatInt(v, 10)
	}
	switch {
	case lo == 0 && hi == jpAnyMax:
		return append(dst, "**"...)
	case lo == hi:
		return append(dst, "**{"+level(lo)+"}"...)
	}
	// PostgreSQL keeps last and unbounded as one value
	return append(dst, "**{"+level(lo)+" to "+level(hi)+"}"...)
}
