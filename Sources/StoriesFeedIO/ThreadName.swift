import CStoriesFiles

/// Names the calling thread as the kernel sees it (`ps -L`, `/proc/self/task/*/comm`; 15
/// bytes kept). Called by the thread itself, first thing: Foundation's `Thread.name` names
/// only the running thread, and can miss one that runs before `start` has returned.
public func nameThisThread(_ name: String) {
    _ = stories_name_this_thread(name)
}
