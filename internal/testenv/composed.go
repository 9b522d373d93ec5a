package testenv

// A Composed Method of the sample image: ShoppingCart>>total does three
// things (subtotal, discount, tax); ComposedTotal sends two new helper
// methods for the first two. The sample image's tests pass with the set.
const (
	ComposedTotal = "total\n\t\"Answer what the customer pays: the subtotal, minus the loyalty discount, plus tax\"\n\n" +
		"\t| net |\n\tnet := self subtotal.\n\tnet := net - (self loyaltyDiscountOn: net).\n\t^ net + (net * self class taxRate / 100)"
	SubtotalHelper = "subtotal\n\n\t| sum |\n\tsum := 0.\n\titems do: [ :each | sum := sum + (each key price * each value) ].\n\t^ sum"
	DiscountHelper = "loyaltyDiscountOn: anAmount\n\n\tcustomer isNil ifTrue: [ ^ 0 ].\n" +
		"\tcustomer orders size > 10 ifTrue: [ ^ anAmount * 10 / 100 ].\n" +
		"\tcustomer orders size > 5 ifTrue: [ ^ anAmount * 5 / 100 ].\n\t^ 0"
	// TaxlessTotal forgets the tax: the oracle fails ShoppingCartTest>>#testTotal.
	TaxlessTotal = "total\n\n\t| net |\n\tnet := self subtotal.\n\t^ net - (self loyaltyDiscountOn: net)"
)
