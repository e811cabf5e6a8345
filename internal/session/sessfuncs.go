package session

// The builtins that read or change the session (exec.SessionHooks.Call):
// current_setting, set_config, the transaction-id functions, pg_notify and
// pg_backend_pid.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidal-db/tidal/internal/guc"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/sql/types"
	"github.com/tidal-db/tidal/internal/xact"
)

// Call implements exec.SessionHooks.
func (s *Session) Call(name string, args []types.Datum) (types.Datum, error) {
	switch name {
	case "current_setting":
		missingOK := len(args) > 1 && args[1].Bool()
		v, err := s.showValue(args[0].Str())
		if err != nil {
			if missingOK && pgerr.Code(err) == pgerr.UndefinedObject {
				return types.Null(), nil
			}
			return types.Null(), err
		}
		return types.Str(v), nil
	case "set_config":
		return s.setConfig(args)
	case "current_user":
		return types.Str(s.currentUser()), nil
	case "session_user":
		return types.Str(s.sessionUser()), nil
	case "txid_current", "pg_current_xact_id":
		xid, err := s.eng.Xact.AssignXid(s.proc)
		if err != nil {
			return types.Null(), err
		}
		s.htx.Xid = xid
		return types.Int(s.fullXid(xid)), nil
	case "txid_current_if_assigned", "pg_current_xact_id_if_assigned":
		if xid := s.proc.Xid(); xid != xact.InvalidXid {
			return types.Int(s.fullXid(xid)), nil
		}
		return types.Null(), nil
	case "txid_status", "pg_xact_status":
		return s.xactStatus(args[0].Int())
	case "txid_current_snapshot", "pg_current_snapshot":
		return types.Str(s.snapshotText()), nil
	case "pg_notify":
		if args[0].IsNull() || args[0].Str() == "" {
			return types.Null(), pgerr.Errorf(pgerr.InvalidParameterValue, "channel name cannot be empty")
		}
		return types.Null(), s.notify(args[0].Str(), args[1].Str())
	case "pg_listening_channels":
		var out []types.Datum
		for _, ch := range s.listeningChannels() {
			out = append(out, types.Str(ch))
		}
		return types.Array(out), nil
	}
	return types.Null(), pgerr.Errorf(pgerr.UndefinedFunction, "function %s does not exist", name)
}

// showValue is a setting's value as SHOW prints it.
func (s *Session) showValue(name string) (string, error) {
	d, err := guc.Lookup(name)
	if err != nil {
		return "", err
	}
	if strings.EqualFold(d.Name, "transaction_isolation") {
		return s.Setting("transaction_isolation"), nil
	}
	return s.Get(name), nil
}

// setConfig is set_config(name, value, is_local): SET or SET LOCAL through
// the session's SET path; a NULL value resets the parameter. It returns the
// new value as SHOW prints it.
func (s *Session) setConfig(args []types.Datum) (types.Datum, error) {
	if args[0].IsNull() {
		return types.Null(), pgerr.Errorf(pgerr.NullValueNotAllowed, "SET requires parameter name")
	}
	name := args[0].Str()
	local := !args[2].IsNull() && args[2].Bool()
	value := args[1].Str()
	if args[1].IsNull() {
		d, err := guc.Lookup(name)
		if err != nil {
			return types.Null(), err
		}
		value = d.Default
		if v, ok := s.conf[strings.ToLower(d.Name)]; ok {
			value = v
		}
	}
	if err := s.set(name, value, local); err != nil {
		return types.Null(), err
	}
	v, err := s.showValue(name)
	if err != nil {
		return types.Null(), err
	}
	return types.Str(v), nil
}

// fullXid widens a transaction id with its epoch, as the xid8 functions
// print it. tidal keeps no epoch counter: ids are taken to be of the
// current epoch, which the 32-bit id of a running or recent transaction
// always is until the first wraparound.
func (s *Session) fullXid(xid xact.XID) int64 {
	return int64(xid)
}

// xactStatus is pg_xact_status(xid8): committed, aborted or in progress.
func (s *Session) xactStatus(full int64) (types.Datum, error) {
	next := int64(s.eng.Xact.NextXid())
	if full >= next {
		return types.Null(), pgerr.Errorf(pgerr.InvalidParameterValue, "transaction ID %d is in the future", full)
	}
	if full < 0 || full > int64(^uint32(0)) {
		return types.Null(), nil
	}
	xid := xact.XID(full)
	if xid == s.proc.Xid() {
		return types.Str("in progress"), nil
	}
	switch s.eng.Xact.State(xid) {
	case xact.Committed:
		return types.Str("committed"), nil
	case xact.InProgress:
		return types.Str("in progress"), nil
	}
	return types.Str("aborted"), nil
}

// snapshotText prints the statement's snapshot as pg_snapshot's output
// does: xmin:xmax:xip,…
func (s *Session) snapshotText() string {
	snap := s.htx.Snap
	if snap == nil {
		snap = s.eng.Xact.GetSnapshot(s.proc)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d:%d:", s.fullXid(snap.Xmin), s.fullXid(snap.Xmax))
	for i, x := range snap.Xip {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(s.fullXid(x), 10))
	}
	return b.String()
}
