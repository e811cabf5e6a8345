package session

import (
	"hash/fnv"
	"strconv"
	"time"

	pg "github.com/pganalyze/pg_query_go/v6"

	"github.com/tidal-db/tidal/internal/catalog"
	"github.com/tidal-db/tidal/internal/pgerr"
	"github.com/tidal-db/tidal/internal/pgwire"
	"github.com/tidal-db/tidal/internal/sql/parser"
	"github.com/tidal-db/tidal/internal/stmtstats"
)

// pg_stat_statements' side in the session: every top-level statement that
// succeeds adds its execution time, rows and buffer and WAL usage to its
// entry in the engine's store (stmtstats).
//
// An entry is keyed by the statement's query id and shows its normalised
// text: pg_query's Normalize (the constants replaced by $n in order, as
// pg_stat_statements does) and its 64-bit Fingerprint. Both parse the text
// again, so the session keeps them per statement shape (parser.ScanShape:
// the text with its literals taken out), and a statement whose shape was
// seen costs a scan and a map look-up. Utility statements keep their text
// and are identified by its hash, as PostgreSQL 15 does.

// stmtTracking is the session's pg_stat_statements state.
type stmtTracking struct {
	user uint32 // the login role (userid)
	rows int64  // rows of the running statement (es_processed)
	// shape is the running statement's shape key when the parse cache
	// scanned it already ("": not known).
	shape string
	ids   map[string]stmtIdentity
}

type stmtIdentity struct {
	id    int64
	query string
}

// trackStatement runs run and records it in pg_stat_statements, unless
// tracking is off for it.
func (s *Session) trackStatement(stmt *pg.Node, text string, run func() error) error {
	utility := !isPlannable(stmt)
	shape := s.tracking.shape
	s.tracking.shape = ""
	if s.Setting("pg_stat_statements.track") == "none" ||
		utility && s.Setting("pg_stat_statements.track_utility") != "on" {
		return run()
	}
	before := s.usage
	s.tracking.rows = 0
	start := time.Now()
	err := run()
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	id := s.statementIdentity(text, shape, utility)
	max, _ := strconv.Atoi(s.Setting("pg_stat_statements.max"))
	key := stmtstats.Key{UserID: s.tracking.user, DBID: catalog.DatabaseOID, QueryID: id.id, TopLevel: true}
	s.eng.StmtStats.Record(key, func() string { return id.query },
		stmtstats.Exec{Time: elapsed, Rows: s.tracking.rows, Usage: s.usage.Sub(before)}, max)
	return nil
}

// statementIdentity is text's query id and normalised text.
func (s *Session) statementIdentity(text, shape string, utility bool) stmtIdentity {
	key := text
	if !utility {
		if shape == "" {
			if sh, ok := parser.ScanShape(text); ok {
				shape = sh.Key
			}
		}
		if shape != "" {
			key = "\x00" + shape
		}
	}
	if id, ok := s.tracking.ids[key]; ok {
		return id
	}
	id := computeIdentity(text, utility)
	if s.tracking.ids == nil || len(s.tracking.ids) >= maxCachedTexts {
		s.tracking.ids = map[string]stmtIdentity{}
	}
	s.tracking.ids[key] = id
	return id
}

func computeIdentity(text string, utility bool) stmtIdentity {
	if !utility {
		norm, err := pg.Normalize(text)
		fp, ferr := pg.FingerprintToUInt64(text)
		if err == nil && ferr == nil {
			return stmtIdentity{id: int64(fp), query: norm}
		}
	}
	h := fnv.New64a()
	h.Write([]byte(text))
	return stmtIdentity{id: int64(h.Sum64()), query: text}
}

// createExtension is CREATE EXTENSION for the one extension tidal has,
// pg_stat_statements, which is built in and always collecting: creating
// it makes nothing new (there is no pg_extension catalog).
func (s *Session) createExtension(ce *pg.CreateExtensionStmt, w pgwire.ResultWriter) error {
	if ce.Extname != "pg_stat_statements" {
		return pgerr.Errorf(pgerr.UndefinedFile, "could not open extension control file \"%s.control\": No such file or directory", ce.Extname)
	}
	return w.CommandComplete("CREATE EXTENSION")
}
