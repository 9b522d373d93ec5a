package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// PriceTable is the file EVAL_PRICES (default eval/prices.json): what a
// million input and output tokens of each model cost, for the user to
// edit. A model it does not name has no cost — unknown, never 0.
type PriceTable struct {
	Currency string `json:"currency"`
	// Source says where the prices come from and when they were read.
	Source string `json:"source"`
	// Models are keyed by the model as EVAL_MODELS names it
	// (gemini:gemini-2.5-flash).
	Models map[string]Price `json:"models"`
}

// Price is one model's price per million tokens. Gemini counts thinking
// tokens as output, and so do the providers' usage figures here.
type Price struct {
	InputPerMillion  float64 `json:"input_per_million"`
	OutputPerMillion float64 `json:"output_per_million"`
	Note             string  `json:"note,omitempty"`
}

// loadPrices reads a price table. A missing file is an empty table (every
// cost unknown); a file that does not read as one is an error, so that a
// typo in a price is not taken for an unknown one.
func loadPrices(path string) (PriceTable, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return PriceTable{Models: map[string]Price{}}, nil
	}
	if err != nil {
		return PriceTable{}, fmt.Errorf("EVAL_PRICES: %w", err)
	}
	var t PriceTable
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return PriceTable{}, fmt.Errorf("EVAL_PRICES %s: %w", path, err)
	}
	for model, p := range t.Models {
		if p.InputPerMillion < 0 || p.OutputPerMillion < 0 {
			return PriceTable{}, fmt.Errorf("EVAL_PRICES %s: %s has a negative price", path, model)
		}
	}
	if t.Models == nil {
		t.Models = map[string]Price{}
	}
	if t.Currency == "" {
		t.Currency = "USD"
	}
	return t, nil
}

// cost is what input and output tokens of model cost; nil when the table
// has no price for it.
func (t PriceTable) cost(model string, input, output int64) *float64 {
	p, ok := t.Models[model]
	if !ok {
		return nil
	}
	c := (float64(input)*p.InputPerMillion + float64(output)*p.OutputPerMillion) / 1e6
	return &c
}
