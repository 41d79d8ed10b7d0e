package result

import (
	"encoding/json"

	"github.com/ctxbench/ctxbench/internal/model"
)

// A label is kept structured (model.Label) so nothing splits a joined string
// apart again. JSON carries it twice: "label", the one line people and the
// outside checks read, and "label_parts", each part by name. A file whose
// rows have only "label" reads with the whole line as the label's What.

type labelJSON struct {
	Line  string       `json:"label"`
	Parts *model.Label `json:"label_parts,omitempty"`
}

func (l labelJSON) label() model.Label {
	if l.Parts != nil {
		return *l.Parts
	}
	return model.Label{What: l.Line}
}

// Each labelled type spells the struct of its plain type (the type without
// these methods) and labelJSON itself: Go cannot embed a type parameter.

// decodeLabeled decodes b into aux, a struct of a row's plain type and
// labelJSON; if that worked, keep stores the row and its label.
func decodeLabeled(b []byte, aux interface{ label() model.Label }, keep func(model.Label)) error {
	if err := json.Unmarshal(b, aux); err != nil {
		return err
	}
	keep(aux.label())
	return nil
}

// MarshalJSON writes the result with its label as line and parts.
func (r Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return json.Marshal(struct {
		plain
		labelJSON
	}{plain(r), labelJSON{r.Label.String(), &r.Label}})
}

// UnmarshalJSON reads a result and its label.
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result
	var aux struct {
		plain
		labelJSON
	}
	return decodeLabeled(b, &aux, func(l model.Label) { *r, r.Label = Result(aux.plain), l })
}

// MarshalJSON writes the ring point with its label as line and parts.
func (r Ring) MarshalJSON() ([]byte, error) {
	type plain Ring
	return json.Marshal(struct {
		plain
		labelJSON
	}{plain(r), labelJSON{r.Label.String(), &r.Label}})
}

// UnmarshalJSON reads a ring point and its label.
func (r *Ring) UnmarshalJSON(b []byte) error {
	type plain Ring
	var aux struct {
		plain
		labelJSON
	}
	return decodeLabeled(b, &aux, func(l model.Label) { *r, r.Label = Ring(aux.plain), l })
}
