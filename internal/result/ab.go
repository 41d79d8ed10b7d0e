package result

// AB is an interleaved A/B (ctxbench ab): the same cells measured under two
// set-ups in one sitting, each block of side A preceded by SetupA and each
// of side B by SetupB, the sides' blocks interleaved round by round; the
// change of each cell from B's and A's blocks paired by round (rounds ran
// side by side in the same stretch of host noise, which cancels in their
// ratio). Cleanup ran once at the end. The commands are recorded as given.
type AB struct {
	SetupA  string     `json:"setup_a"`
	SetupB  string     `json:"setup_b"`
	Cleanup string     `json:"cleanup,omitempty"`
	Changes []ABChange `json:"changes"`
}

// ABChange is one cell's change from A to B: the two sides' medians, the
// Hodges–Lehmann ratio of their paired per-round block medians (B over A)
// − 1 with the signed-rank interval at Confidence, Resolved when that
// interval excludes no change, Rounds the rounds paired.
type ABChange struct {
	Name       string  `json:"name"`
	Placement  string  `json:"placement"`
	AMedian    float64 `json:"a_median_ns"`
	BMedian    float64 `json:"b_median_ns"`
	Change     float64 `json:"change"`
	Low        float64 `json:"change_low"`
	High       float64 `json:"change_high"`
	Confidence float64 `json:"confidence"`
	Resolved   bool    `json:"resolved"`
	Rounds     int     `json:"rounds"`
}
