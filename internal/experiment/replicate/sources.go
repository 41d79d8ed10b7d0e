package replicate

// sources.go: the publications ctxbench reproduces, each named by its own
// title, site, date and address as far as it gives them. Every published
// figure ctxbench prints cites one of these.

// Source is one publication.
type Source struct {
	Title string
	Site  string // author, site or kind of publication
	Date  string // as published; "" when it gives none
	URL   string // "" when it gives none
}

// String cites the source in one line.
func (s Source) String() string {
	out := "\"" + s.Title + "\""
	for _, p := range []string{s.Site, s.Date, s.URL} {
		if p != "" {
			out += ", " + p
		}
	}
	return out
}

// The publications.
var (
	// SourceHierarchy: the goroutine experiment and the cost-hierarchy
	// table with its creation and memory claims.
	SourceHierarchy = Source{Title: "Context Switching Experiment: Goroutine Switching Cost", Site: "an unattributed write-up (no author, date or address given)"}
	// SourcePipes: fork and two pipes, 1,000,000 round trips, and the Go
	// one-channel program.
	SourcePipes = Source{Title: "Measuring context switch latency", Site: "a blog post", Date: "2023-02-24"}
	// SourcePerfBench: perf bench sched pipe -T and a go test -bench
	// benchmark, with a goroutine's memory.
	SourcePerfBench = Source{Title: "Goroutine", Site: "study notes on goroutines (no author, date or address given)"}
	// SourceHotPotato: a 400-thread vs 400-process ring.
	SourceHotPotato = Source{Title: "Threads vs Processes", Site: "a \"hot potato\" benchmark write-up after lmbench (i9-13900K, Linux 6.1; no author or date given)"}
	// SourcePool: a database/sql pool of 10 vs 90 against PostgreSQL.
	SourcePool = Source{Title: "Cost of Context Switches", Site: "Michael Mwangi's blog", Date: "2019-10-21", URL: "https://github.com/michaelmwangi/blog/tree/master/contextswitch"}
	// SourceLmbench is the method the rings follow.
	SourceLmbench = Source{Title: "lmbench: Portable Tools for Performance Analysis", Site: "Larry McVoy and Carl Staelin, USENIX Annual Technical Conference", Date: "1996", URL: "https://www.usenix.org/legacy/publications/library/proceedings/sd96/full_papers/mcvoy.pdf"}
)
