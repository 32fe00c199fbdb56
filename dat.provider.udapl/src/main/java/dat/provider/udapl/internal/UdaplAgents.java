// SPDX-License-Identifier: Apache-2.0
package dat.provider.udapl.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The thread of an IA that runs its CNOs' agents ({@link UdaplCno}), one at a time in the order C triggered them,
 * started by the first trigger and ended by {@code dat_ia_close}. {@link #run} is called from C's upcall: it takes
 * only this object's monitor, never a lock C may be waiting behind, and never blocks on a running agent.
 */
final class UdaplAgents {

    private final String threadName;
    /** Guarded by {@code this}. */
    private ExecutorService thread;
    /** Guarded by {@code this}. */
    private boolean ended;

    /**
     * @param threadName the name of the thread, made at the first {@link #run}
     */
    UdaplAgents(String threadName) {
        this.threadName = threadName;
    }

    /**
     * Queues an agent's call; dropped once {@link #end} ran. What the call throws is logged, and the next call runs.
     *
     * @param call the agent's call
     */
    synchronized void run(Runnable call) {
        if (ended) {
            return;
        }
        if (thread == null) {
            thread = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name(threadName).factory());
        }
        thread.execute(() -> {
            try {
                call.run();
            } catch (RuntimeException | Error e) {
                UdaplIa.LOG.log(System.Logger.Level.WARNING, "a CNO agent threw", e);
            }
        });
    }

    /** Lets the queued calls run (each checks its CNO is still open) and takes no more ({@code dat_ia_close}). */
    synchronized void end() {
        ended = true;
        if (thread != null) {
            thread.shutdown();
        }
    }
}
