package exec

import (
	"math"
	"strconv"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/tidal-db/tidal/internal/access/tableam"
	"github.com/tidal-db/tidal/internal/sql/expr"
	"github.com/tidal-db/tidal/internal/sql/parser"
)

// PostgreSQL's planner cost constants (seq_page_cost, cpu_tuple_cost,
// cpu_operator_cost at their defaults), for choosing between a serial and
// a parallel plan the way its cost model would.
const (
	seqPageCost     = 1.0
	cpuTupleCost    = 0.01
	cpuOperatorCost = 0.0025
	// defaultNumGroups is PostgreSQL's estimate of a column's distinct
	// values without statistics (DEFAULT_NUM_DISTINCT).
	defaultNumGroups = 200
)

// parallelAllowed: the statement being planned may use parallel workers.
// PostgreSQL plans serially for a statement that writes (INSERT … SELECT,
// a data-modifying WITH), a cursor (which could be suspended while its
// workers hold a snapshot), a routine's statements, and a query that
// calls a parallel-unsafe function anywhere. Asked only once a parallel
// plan is in view, so ordinary statements pay nothing for it.
func (p *Planner) parallelAllowed() bool {
	if p.NoParallel || p.topSelect == nil || p.C == nil || p.C.routine != nil || p.C.vars != nil || p.C.Eng == nil || p.C.Eng.AMEnv == nil || p.C.Eng.AMEnv.Workers == nil {
		return false
	}
	return !withWrites(p.topSelect.WithClause) && !p.callsParallelUnsafe(p.topSelect)
}

// withWrites reports whether a WITH clause holds a data-modifying query.
func withWrites(w *pg.WithClause) bool {
	if w == nil {
		return false
	}
	for _, n := range w.Ctes {
		cte := n.GetCommonTableExpr()
		if cte != nil && cte.Ctequery.GetSelectStmt() == nil {
			return true
		}
	}
	return false
}

// parallelizeAgg turns agg over a Seq Scan into Finalize Aggregate →
// Gather → Partial Aggregate → Parallel Seq Scan when the table is big
// enough for workers (min_parallel_table_scan_size) and PostgreSQL's cost
// model makes the parallel plan cheaper; otherwise it leaves agg alone.
func (p *Planner) parallelizeAgg(a *Agg) {
	if a.distinct || a.split != aggSimple || a.Sets != nil {
		return
	}
	scan, ok := a.Input.(*SeqScan)
	if !ok {
		return
	}
	partial := &Agg{Input: scan, GroupBy: a.GroupBy, Aggs: a.Aggs, Cols: a.Cols, split: aggPartial}
	workers, pages := 0, 0.0
	if allParallelAggregable(a.Aggs) {
		workers, pages = p.parallelScanWorkers(scan, partial)
	}
	if workers == 0 {
		// No partial aggregation (DISTINCT, ORDER BY, an argument the
		// workers may not evaluate such as random()): the workers can
		// still filter the rows the leader aggregates.
		a.Input = p.parallelizeScan(scan)
		return
	}
	// cost_seqscan, cost_agg and cost_gather of the two plans.
	tuples, perTuple, sel := scanCosts(scan, pages)
	aggPerRow := cpuOperatorCost * float64(len(a.Aggs)+len(a.GroupBy))
	groups := 1.0
	if len(a.GroupBy) > 0 {
		groups = math.Min(math.Pow(defaultNumGroups, float64(len(a.GroupBy))), math.Max(1, tuples*sel))
	}
	serial := pages*seqPageCost + tuples*perTuple + tuples*sel*aggPerRow + groups*cpuTupleCost
	div := parallelDivisor(p.C, workers)
	partialCost := pages*seqPageCost + tuples*perTuple/div + tuples*sel/div*aggPerRow + groups*cpuTupleCost
	gatherRows := groups * float64(workers)
	finalize := gatherRows*aggPerRow + groups*cpuTupleCost
	if partialCost+gatherCost(p.C, gatherRows)+finalize >= serial {
		return
	}
	a.Input = p.gatherOver(partial, scan, workers)
	a.split = aggFinalize
}

// parallelizeScan puts a Gather over a Seq Scan whose qual the workers can
// evaluate, when filtering in parallel beats passing the rows up through
// the Gather (parallel_tuple_cost each); otherwise it returns n.
func (p *Planner) parallelizeScan(n Node) Node {
	scan, ok := n.(*SeqScan)
	if !ok {
		return n
	}
	workers, pages := p.parallelScanWorkers(scan, scan)
	if workers == 0 {
		return n
	}
	tuples, perTuple, sel := scanCosts(scan, pages)
	rows := math.Max(1, tuples*sel)
	serial := pages*seqPageCost + tuples*perTuple
	parallel := pages*seqPageCost + tuples*perTuple/parallelDivisor(p.C, workers) + gatherCost(p.C, rows)
	if parallel >= serial {
		return n
	}
	scan.reuseRow = false // its rows travel to the leader in batches
	return p.gatherOver(scan, scan, workers)
}

func allParallelAggregable(calls []*AggCall) bool {
	for _, call := range calls {
		if !parallelAggregable(call) {
			return false
		}
	}
	return true
}

// parallelScanWorkers is how many workers a Gather over sub, whose Seq
// Scan is scan, would plan, with the table's size in blocks; 0 when the
// statement, the table or an expression in sub rules parallelism out.
func (p *Planner) parallelScanWorkers(scan *SeqScan, sub Node) (int, float64) {
	if scan.WithTID || len(scan.Sys) > 0 || scan.Rel.IsTemp() {
		return 0, 0
	}
	if _, ok := scan.Rel.Table.(tableam.ParallelScanner); !ok {
		return 0, 0
	}
	nblocks, err := scan.Rel.Table.NBlocks()
	if err != nil {
		return 0, 0
	}
	workers := parallelWorkers(p.C, float64(nblocks))
	if workers == 0 || !p.parallelAllowed() {
		return 0, 0
	}
	scan.Parallel = true
	_, ok := cloneParallelNode(sub)
	scan.Parallel = false
	if !ok {
		return 0, 0
	}
	return workers, float64(nblocks)
}

// gatherOver makes the Gather running sub, whose scan becomes parallel.
func (p *Planner) gatherOver(sub Node, scan *SeqScan, workers int) *Gather {
	scan.Parallel = true
	scan.parallelDiv = parallelDivisor(p.C, workers)
	return &Gather{Input: sub, Planned: workers, scan: scan,
		setupCost: settingFloat(p.C, "parallel_setup_cost", 1000), tupleCost: settingFloat(p.C, "parallel_tuple_cost", 0.1)}
}

// gatherCost is cost_gather's own part for rows passed up.
func gatherCost(c *Ctx, rows float64) float64 {
	return settingFloat(c, "parallel_setup_cost", 1000) + rows*settingFloat(c, "parallel_tuple_cost", 0.1)
}

// scanCosts gives a scan's estimated tuples, its CPU cost per tuple and
// its qual's selectivity: PostgreSQL's defaults without statistics,
// 0.005 for an equality (DEFAULT_EQ_SEL) and 1/3 for anything else.
func scanCosts(scan *SeqScan, pages float64) (tuples, perTuple, sel float64) {
	tuples = estimatedTuples(scan, pages)
	sel = 1.0
	quals := conjuncts(scan.Qual)
	if scan.Qual == nil {
		quals = nil
	}
	for _, q := range quals {
		if f, ok := q.(*expr.Func); ok && f.Op == "=" {
			sel *= 0.005
		} else {
			sel *= 1.0 / 3
		}
	}
	return tuples, cpuTupleCost + float64(len(quals))*cpuOperatorCost, sel
}

// parallelWorkers is PostgreSQL's compute_parallel_worker for a table scan
// of pages blocks: none below min_parallel_table_scan_size, one more each
// time the table triples beyond it, at most max_parallel_workers_per_gather.
func parallelWorkers(c *Ctx, pages float64) int {
	return computeParallelWorkers(c, pages, settingInt(c, "max_parallel_workers_per_gather", 2))
}

// computeParallelWorkers is compute_parallel_worker for a heap of pages
// blocks with at most maxWorkers.
func computeParallelWorkers(c *Ctx, pages float64, maxWorkers int) int {
	threshold := math.Max(float64(settingInt(c, "min_parallel_table_scan_size", 1024)), 1)
	if pages < threshold {
		return 0
	}
	workers := 1
	for pages >= threshold*3 && threshold < math.MaxInt32/3 {
		workers++
		threshold *= 3
	}
	return min(workers, maxWorkers)
}

// parallelDivisor is PostgreSQL's get_parallel_divisor: the share of the
// rows each participant is expected to process, counting the leader's
// part (it also has to read the workers' output).
func parallelDivisor(c *Ctx, workers int) float64 {
	d := float64(workers)
	if settingBool(c, "parallel_leader_participation", true) {
		if lead := 1 - 0.3*float64(workers); lead > 0 {
			d += lead
		}
	}
	return d
}

// estimatedTuples is the table's row count as the planner guesses it: the
// density last measured (VACUUM, ANALYZE) times the current size, or from
// the row width when never measured (PostgreSQL's estimate_rel_size).
func estimatedTuples(scan *SeqScan, pages float64) float64 {
	if scan.Rel.Pages > 0 && scan.Rel.Tuples >= 0 {
		return float64(scan.Rel.Tuples) / float64(scan.Rel.Pages) * pages
	}
	width := float64(colsWidth(scan.Columns())) + 24 + 4
	return math.Floor((8192-24)/width) * pages
}

func settingInt(c *Ctx, name string, def int) int {
	if c == nil || c.Setting == nil {
		return def
	}
	if v, err := strconv.Atoi(c.Setting(name)); err == nil {
		return v
	}
	return def
}

func settingFloat(c *Ctx, name string, def float64) float64 {
	if c == nil || c.Setting == nil {
		return def
	}
	if v, err := strconv.ParseFloat(c.Setting(name), 64); err == nil {
		return v
	}
	return def
}

func settingBool(c *Ctx, name string, def bool) bool {
	if c == nil || c.Setting == nil {
		return def
	}
	switch c.Setting(name) {
	case "on":
		return true
	case "off":
		return false
	}
	return def
}

// parallelUnsafeBuiltins are built-in functions PostgreSQL marks PARALLEL
// UNSAFE (proparallel 'u'): they change or read backend-local state a
// worker does not share.
var parallelUnsafeBuiltins = map[string]bool{
	"nextval": true, "setval": true, "currval": true, "lastval": true,
	"set_config": true, "txid_current": true, "pg_current_xact_id": true,
	"pg_notify": true, "pg_advisory_lock": true, "pg_advisory_xact_lock": true,
	"pg_advisory_lock_shared": true, "pg_advisory_xact_lock_shared": true,
	"pg_try_advisory_lock": true, "pg_try_advisory_xact_lock": true,
	"pg_advisory_unlock": true, "pg_advisory_unlock_all": true,
}

// callsParallelUnsafe reports whether the statement calls a function that
// makes the whole query serial in PostgreSQL (max_parallel_hazard): a
// parallel-unsafe built-in, or a user routine (PARALLEL UNSAFE unless
// declared otherwise, and tidal does not record the declaration).
func (p *Planner) callsParallelUnsafe(s *pg.SelectStmt) bool {
	unsafe := false
	parser.Walk(&pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: s}}, func(m proto.Message) bool {
		if fc, ok := m.(*pg.FuncCall); ok && !unsafe {
			name := fc.Funcname[len(fc.Funcname)-1].GetString_().Sval
			unsafe = parallelUnsafeBuiltins[name] || p.hasRoutines(fc)
		}
		return !unsafe
	})
	return unsafe
}
