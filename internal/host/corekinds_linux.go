package host

// CoreKinds maps this machine's CPUs to their core types (nil unless the
// part is hybrid), from sysfs (ReadTopology).
func CoreKinds() map[int]CoreKind {
	var out map[int]CoreKind
	for _, c := range ReadTopology(Root("")).CPUs {
		if c.Kind != "" {
			if out == nil {
				out = map[int]CoreKind{}
			}
			out[c.ID] = c.Kind
		}
	}
	return out
}
