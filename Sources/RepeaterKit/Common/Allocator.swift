import CRepeaterSupport

/// The process's allocator settings for a long run.
enum Allocator {
    /// Blocks of 128 KiB and more are mapped and go back to the system when freed.
    ///
    /// glibc starts at this threshold but raises it each time a mapped block is freed (up to 32 MiB),
    /// so after the first Rubber Band stretcher is freed, every later stretcher's buffers come from
    /// the heap, which fragments and is kept: measured over 4 minutes of a rate or pitch change
    /// every 1.5 s (a stretcher built and freed each time), private memory kept growing and ended
    /// 9.5 MiB higher with the moving threshold than with it pinned, where it stays flat after the
    /// first stretchers (README, *When things go wrong*). Setting it once turns the moving off.
    /// Only the control thread allocates large blocks; the audio threads allocate nothing.
    static func returnLargeBlocks() {
        _ = repeater_malloc_pin_mmap_threshold(128 * 1024)
    }

    /// Control thread, after a stretcher was freed: the free pages left inside the heap go back to
    /// the system too, so that resident memory follows what is alive (a stretcher's smaller blocks
    /// stay below the threshold). About a millisecond; the audio threads never call the allocator,
    /// so they never wait on its lock.
    static func giveBackFreePages() {
        repeater_malloc_trim()
    }
}
