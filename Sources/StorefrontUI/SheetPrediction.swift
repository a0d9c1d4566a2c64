import StoreEngine

/// What a sheet predicts its answer does, as the engine last answered a question about it: the
/// App Store sheet's promotional offer (``OfferPrediction``), what Submit on Request a Refund will
/// do. Asked when the sheet comes to show a question and again when the store changes under it;
/// an answer about another question, or one not asked any more, is dropped.
public struct SheetPrediction<Question: Equatable & Sendable, Answer: Equatable & Sendable>: Equatable, Sendable {
    /// The question last asked and not answered yet.
    public internal(set) var asked: Question?
    /// The question last answered, and the engine's answer.
    public internal(set) var question: Question?
    public internal(set) var answer: Answer?

    public init() {}

    /// The answer about `question`, once answered: nil while it is still being asked.
    func answer(for question: Question) -> Answer? { self.question == question ? answer : nil }

    /// Keeps the engine's answer when it is about the question asked (or answered last, answered
    /// again); one about a question forgotten or never asked, such as a late one, is dropped.
    mutating func answered(_ question: Question, _ answer: Answer) {
        guard asked == question || self.question == question else { return }
        (self.question, self.answer) = (question, answer)
        if asked == question { asked = nil }
    }

    /// After each action: the question to ask about `shown` (what the open sheet shows, nil when it
    /// shows none), when it is new to the sheet or a load says the store changed; nil when none.
    mutating func ask(about shown: Question?, after action: Action) -> Question? {
        let storeChanged = if case .loaded = action { true } else { false }
        guard let shown else {
            // An answer about the store as it was is no answer once the sheet opens again.
            if storeChanged { self = Self() }
            return nil
        }
        guard storeChanged || (question != shown && asked != shown) else { return nil }
        asked = shown
        return shown
    }
}
