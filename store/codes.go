package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ragd/ragd"
)

// The quantized vector search (docs/adr/0009-scale.md): every stored vector
// has a one-bit code in memory, bit i set when value i is positive. The
// Hamming distance between two codes estimates the angle between the
// vectors, so a scan of the codes — 96 bytes a vector at 768 dims instead of
// 3 KB — finds a shortlist that holds the true nearest neighbours, and the
// shortlist is then ranked exactly from the stored floats. The codes are
// derived data: they are rebuilt from the vectors at every open and kept in
// step by the writes, never stored.

// shortlistFactor is how many shortlist entries a quantized search rescores
// per candidate wanted: 16 keeps recall@12 ≥ 0.95 against the exact KNN on
// the real embeddings measured (docs/adr/0009-scale.md has the curve).
const shortlistFactor = 16

// minShortlist keeps small k from starving the shortlist: a few hundred
// exact distances cost well under a millisecond.
const minShortlist = 128

// quantizedMinVectors is the project size from which a search uses the
// codes: below it an exact scan costs a few milliseconds, and exactness is
// worth more than they save.
const quantizedMinVectors = 20_000

// quantizedMinDims is the smallest vector length quantized: one sign bit
// per dimension keeps too little of a short vector to shortlist its
// neighbours (measured, TestKitQuantizedRecall: glove-100d recall@12 0.77 at
// 16×k, use-lite 512-d 0.993), and a short vector's exact scan is cheap.
const quantizedMinDims = 256

// noScope marks a free slot.
const noScope = 0xff

// codeOp is one change to the codes, applied after its transaction commits.
type codeOp struct {
	seq, project int64
	scope        uint8
	code         []uint64 // nil: delete seq
	dropProject  bool     // delete every code of project
}

// codeIndex holds the codes of every stored vector, by slot.
type codeIndex struct {
	words int // uint64 words per code
	// vecDims is the vectors' length.
	vecDims int

	mu sync.RWMutex
	// ready is false until the load from the database is done; searches
	// scan exactly meanwhile, and committed changes wait in pending.
	ready   bool
	loading bool
	pending []codeOp
	loadErr error
	done    chan struct{}

	seqs     []int64
	projects []int64
	scopes   []uint8
	codes    []uint64 // words per slot
	slots    map[int64]int32
	free     []int32
	// perProject counts the codes of each project.
	perProject map[int64]int
	// gen counts the commits applied: a snapshot pinned at gen g can use
	// the codes only while they are still at g.
	gen uint64
}

func newCodeIndex(dims int) *codeIndex {
	return &codeIndex{words: (dims + 63) / 64, vecDims: dims, slots: map[int64]int32{}, perProject: map[int64]int{}, done: make(chan struct{})}
}

func scopeIndex(scope string) uint8 {
	return uint8(slices.Index(ragd.Scopes, scope))
}

func (x *codeIndex) dims() int { return x.vecDims }

// codeOf quantizes a vector: bit i is set when v[i] > 0. The zero padding
// beyond dims is the same in every code, so it never counts in a distance.
func codeOf(v []float32, words int) []uint64 {
	code := make([]uint64, words)
	for i, x := range v {
		if x > 0 {
			code[i/64] |= 1 << (i % 64)
		}
	}
	return code
}

// codeOfBlob quantizes a vector in sqlite-vec's float32 encoding: the sign
// bit of each value, set for negatives and for -0, is all the code needs.
func codeOfBlob(b []byte, words int) []uint64 {
	code := make([]uint64, words)
	for i := 0; i+3 < len(b); i += 4 {
		// Positive: sign bit clear and not +0.
		if b[i+3]&0x80 == 0 && (b[i] != 0 || b[i+1] != 0 || b[i+2] != 0 || b[i+3] != 0) {
			code[i/256] |= 1 << ((i / 4) % 64)
		}
	}
	return code
}

// apply changes the codes; the caller holds mu.
func (x *codeIndex) apply(ops []codeOp) {
	if len(ops) == 0 {
		return
	}
	x.gen++
	if !x.ready {
		if x.loading {
			x.pending = append(x.pending, ops...)
		}
		return
	}
	for _, op := range ops {
		switch {
		case op.dropProject:
			for seq, slot := range x.slots {
				if x.projects[slot] == op.project {
					x.remove(seq, slot)
				}
			}
		case op.code == nil:
			if slot, ok := x.slots[op.seq]; ok {
				x.remove(op.seq, slot)
			}
		default:
			x.put(op)
		}
	}
}

func (x *codeIndex) remove(seq int64, slot int32) {
	delete(x.slots, seq)
	x.perProject[x.projects[slot]]--
	x.scopes[slot] = noScope
	x.free = append(x.free, slot)
}

func (x *codeIndex) put(op codeOp) {
	slot, ok := x.slots[op.seq]
	if !ok {
		if n := len(x.free); n > 0 {
			slot, x.free = x.free[n-1], x.free[:n-1]
		} else {
			slot = int32(len(x.seqs))
			x.seqs = append(x.seqs, 0)
			x.projects = append(x.projects, 0)
			x.scopes = append(x.scopes, noScope)
			x.codes = append(x.codes, make([]uint64, x.words)...)
		}
		x.slots[op.seq] = slot
	} else {
		x.perProject[x.projects[slot]]--
	}
	x.perProject[op.project]++
	x.seqs[slot], x.projects[slot], x.scopes[slot] = op.seq, op.project, op.scope
	copy(x.codes[int(slot)*x.words:], op.code)
}

// load reads every stored vector's code from a snapshot of db. Changes
// committed after the snapshot wait in pending and are applied after, so
// the index ends as the database is.
func (x *codeIndex) load(ctx context.Context, db *sql.DB) error {
	// Read without the memory map: through it every vector page read would
	// stay in this process's resident set (3 GB at 1M × 768) until the
	// next commit unmaps it.
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("load vector codes: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA mmap_size = 0"); err != nil {
		return fmt.Errorf("load vector codes: %w", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA mmap_size = "+strconv.FormatInt(mmapSize, 10))
	x.mu.Lock()
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err == nil {
		var n int
		// The snapshot is taken at the first read: take it while no
		// write can commit (writes commit holding mu).
		if err = tx.QueryRowContext(ctx, "SELECT count(*) FROM chunks").Scan(&n); err == nil {
			x.loading = true
		}
	}
	x.mu.Unlock()
	if err != nil {
		if tx != nil {
			tx.Rollback()
		}
		return fmt.Errorf("load vector codes: %w", err)
	}
	defer tx.Rollback()

	fresh := newCodeIndex(0)
	fresh.words = x.words
	if err := x.readCodes(ctx, tx, fresh); err != nil {
		return fmt.Errorf("load vector codes: %w", err)
	}

	x.mu.Lock()
	defer x.mu.Unlock()
	x.seqs, x.projects, x.scopes, x.codes, x.slots, x.free = fresh.seqs, fresh.projects, fresh.scopes, fresh.codes, fresh.slots, nil
	x.perProject = fresh.perProject
	x.ready, x.loading = true, false
	x.apply(x.pending)
	x.pending = nil
	return nil
}

// readCodes fills fresh with the code of every stored vector. It reads
// sqlite-vec's shadow tables (v0.1.6 layout: chunk_vectors_rowids maps a
// rowid to a chunk of 1024 vectors and an offset in it, and
// chunk_vectors_vector_chunks00 holds each chunk as one blob) rather than
// the vec0 table: a vec0 scan opens a blob per row, about 0.2 ms each, or
// minutes at 1M; this reads each chunk's blob once.
func (x *codeIndex) readCodes(ctx context.Context, tx *sql.Tx, fresh *codeIndex) error {
	type place struct {
		seq, project int64
		scope        uint8
		offset       int
	}
	rows, err := tx.QueryContext(ctx, `SELECT r.rowid, r.chunk_id, r.chunk_offset, c.project_id, c.scope
		FROM chunk_vectors_rowids r JOIN chunks c ON c.seq = r.rowid ORDER BY r.chunk_id`)
	if err != nil {
		return err
	}
	byChunk := map[int64][]place{}
	var order []int64
	for rows.Next() {
		var p place
		var chunk int64
		var scope string
		if err := rows.Scan(&p.seq, &chunk, &p.offset, &p.project, &scope); err != nil {
			rows.Close()
			return err
		}
		p.scope = scopeIndex(scope)
		if _, ok := byChunk[chunk]; !ok {
			order = append(order, chunk)
		}
		byChunk[chunk] = append(byChunk[chunk], p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	stmt, err := tx.PrepareContext(ctx, "SELECT vectors FROM chunk_vectors_vector_chunks00 WHERE rowid = ?")
	if err != nil {
		return err
	}
	defer stmt.Close()
	size := 4 * x.dims()
	var blob []byte
	for _, chunk := range order {
		if err := stmt.QueryRowContext(ctx, chunk).Scan(&blob); err != nil {
			return fmt.Errorf("vector chunk %d: %w", chunk, err)
		}
		for _, p := range byChunk[chunk] {
			from := p.offset * size
			if from < 0 || from+size > len(blob) {
				return fmt.Errorf("vector chunk %d: offset %d beyond its %d bytes", chunk, p.offset, len(blob))
			}
			fresh.put(codeOp{seq: p.seq, project: p.project, scope: p.scope, code: codeOfBlob(blob[from:from+size], x.words)})
		}
	}
	return nil
}

// covers reports whether a search of project on a snapshot pinned at gen
// can use the codes: they are loaded, no commit changed them since the
// snapshot began, and the project holds at least min vectors.
func (x *codeIndex) covers(project int64, min int, gen uint64) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.ready && x.gen == gen && x.perProject[project] >= min
}

// shortlist returns the seqs of the m codes nearest to q among the
// project's chunks in the scopes of mask (bit i: ragd.Scopes[i]), nearest
// first; ties in order of slot. It returns false when a commit changed the
// codes since gen: they no longer match the snapshot.
func (x *codeIndex) shortlist(project int64, mask uint8, q []uint64, m int, gen uint64) ([]int64, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.gen != gen {
		return nil, false
	}
	n := len(x.seqs)
	dist := make([]uint16, n)
	// A large scan is split over the cores: each part fills its slots'
	// distances and a histogram of its own.
	parts := 1
	if n >= parallelScan {
		parts = runtime.GOMAXPROCS(0)
	}
	hists := make([][]int, parts)
	var wg sync.WaitGroup
	for p := range parts {
		hists[p] = make([]int, 64*x.words+1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			x.scan(project, mask, q, dist, hists[p], p*n/parts, (p+1)*n/parts)
		}()
	}
	wg.Wait()
	hist := hists[0]
	for _, h := range hists[1:] {
		for d, c := range h {
			hist[d] += c
		}
	}
	// The largest distance that still fits in m.
	limit, total := 0, 0
	for limit = range hist {
		if total+hist[limit] >= m {
			break
		}
		total += hist[limit]
	}
	type hit struct {
		d    uint16
		slot int32
	}
	const skip = skipDistance
	hits := make([]hit, 0, m)
	atLimit := m - total
	for slot, d := range dist {
		switch {
		case d == skip || int(d) > limit:
		case int(d) < limit:
			hits = append(hits, hit{d, int32(slot)})
		case atLimit > 0:
			atLimit--
			hits = append(hits, hit{d, int32(slot)})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.d != b.d {
			return int(a.d) - int(b.d)
		}
		return int(a.slot - b.slot)
	})
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = x.seqs[h.slot]
	}
	return out, true
}

// skipDistance marks a slot the search does not cover.
const skipDistance = 0xffff

// parallelScan is the number of codes from which a scan uses every core:
// below it, starting goroutines costs more than it saves.
const parallelScan = 1 << 18

// scan fills dist and hist for the slots [from, to); the caller holds mu.
func (x *codeIndex) scan(project int64, mask uint8, q []uint64, dist []uint16, hist []int, from, to int) {
	w := x.words
	q = q[:w]
	for slot := from; slot < to; slot++ {
		sc := x.scopes[slot]
		if sc == noScope || mask&(1<<sc) == 0 || x.projects[slot] != project {
			dist[slot] = skipDistance
			continue
		}
		code := x.codes[slot*w : slot*w+w]
		d := 0
		for i, c := range code {
			d += bits.OnesCount64(c ^ q[i])
		}
		dist[slot] = uint16(d)
		hist[d]++
	}
}

// commitVectors commits tx and then applies ops to the codes, holding the
// codes' lock across both: a search whose snapshot sees the commit scans
// codes that include it.
func (s *Store) commitVectors(tx *sql.Tx, ops []codeOp) error {
	if s.codes == nil {
		return tx.Commit()
	}
	s.codes.mu.Lock()
	defer s.codes.mu.Unlock()
	if err := tx.Commit(); err != nil {
		return err
	}
	s.codes.apply(ops)
	return nil
}

// startCodes loads the codes in the background; searches scan exactly
// until it is done.
func (s *Store) startCodes(from int) {
	s.codes = newCodeIndex(s.dims)
	s.quantizedMin, s.shortlistFactor, s.minShortlist = quantizedMinVectors, shortlistFactor, minShortlist
	if from > 0 {
		s.quantizedMin = from
	}
	if s.dims < quantizedMinDims {
		s.quantizedMin = math.MaxInt // short vectors: always the exact scan
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.stopCodes = cancel
	go func() {
		defer close(s.codes.done)
		t0 := time.Now()
		if err := s.codes.load(ctx, s.rdb); err != nil {
			s.codes.mu.Lock()
			s.codes.loadErr, s.codes.loading, s.codes.pending = err, false, nil
			s.codes.mu.Unlock()
			if ctx.Err() == nil {
				s.logger.Error("vector codes not loaded: searches scan every vector exactly", "err", err)
			}
			return
		}
		s.logger.Debug("vector codes loaded", "took", time.Since(t0))
	}()
}
