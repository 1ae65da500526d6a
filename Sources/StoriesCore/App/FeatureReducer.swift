/// A feature's reducer over its own slice and its own actions, in the manner of TCA's
/// `Scope`: it is handed `inout State` — its slice, nothing else — so the compiler, not a
/// test reading the source, keeps it off every other feature's slice and off the shared
/// context. What it needs of the rest of the app it is given (`Context`, values derived
/// once by the parent); what it asks of the rest goes out as effects and delegate values,
/// which the parent carries out after it returns, in the order sent (`Reduction.scope`):
/// a delegate that must see the slice as it was before is the parent's to send first.
/// It is handed its slice, never `AppState`.
protocol FeatureReducer {
    associatedtype State
    associatedtype Action
    /// What the feature reads of the rest of the app, derived by the parent.
    associatedtype Context = Void

    static func reduce(_ state: inout State, _ action: Action, context: Context, into out: inout FeatureOutput)
}

/// What one feature's reduction sends out, in the order it was sent: work for the
/// runtimes, and requests the parent carries out on the slices that are not the feature's.
struct FeatureOutput {
    enum Item {
        case effect(AppEffect)
        case delegate(Delegate)
    }

    private(set) var items: [Item] = []

    mutating func effect(_ effect: AppEffect) { items.append(.effect(effect)) }
    mutating func delegate(_ request: Delegate) { items.append(.delegate(request)) }

    /// A wake-up when the earliest retry is due (one a kind: a new one replaces the one
    /// waiting); none when nothing waits.
    mutating func wake(_ id: WakeID, due: Double?, now: Double) {
        guard let due else { return }
        effect(.wake(id, after: max(0, due - now)))
    }
}

extension Reduction {
    /// Runs `feature` on its slice with `action` and `context`, then routes what it sent out.
    mutating func scope<Feature: FeatureReducer>(_ feature: Feature.Type, _ slice: WritableKeyPath<AppState, Feature.State>,
                                                 _ action: Feature.Action, context: consuming Feature.Context) {
        var out = FeatureOutput()
        Feature.reduce(&state[keyPath: slice], action, context: context, into: &out)
        // Released before the delegates run: a context holding another slice's value (the
        // store) would make the delegate that writes that slice copy it whole.
        _ = consume context
        for item in out.items {
            switch item {
            case .effect(let effect): effects.append(effect)
            case .delegate(let request): delegate(request)
            }
        }
    }

    mutating func scope<Feature: FeatureReducer>(_ feature: Feature.Type, _ slice: WritableKeyPath<AppState, Feature.State>,
                                                 _ action: Feature.Action) where Feature.Context == Void {
        scope(feature, slice, action, context: ())
    }
}
