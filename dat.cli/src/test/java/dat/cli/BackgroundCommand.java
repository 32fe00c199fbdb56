// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code dat} command running on its own thread, as the serving node of a two-node run does ({@code dat tck-peer},
 * {@code dat perf serve}), while the test thread plays the other node.
 */
final class BackgroundCommand {

    private static final Pattern LISTENING = Pattern.compile("listening on (\\S+) \\(IA (\\S+), provider (\\S+)\\)");

    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private final String command;

    /** Starts {@code dat ARGS} on a daemon thread. */
    BackgroundCommand(String... args) {
        this.command = "dat " + String.join(" ", args);
        Thread.ofPlatform().daemon().name(args[0] + "-command-test").start(() -> exit.complete(DatCommand.execute(
                new PrintWriter(out, true), new PrintWriter(err, true), args)));
    }

    /** {@return the {@code HOST:CONN_QUAL} the command printed it listens on, waiting up to 20 s for the line} */
    String address() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline && !exit.isDone()) {
            Matcher m = LISTENING.matcher(out.toString());
            if (m.find()) {
                return m.group(1);
            }
            Thread.sleep(10);
        }
        throw new AssertionError(command + " did not start listening: " + out + err);
    }

    /** {@return the command's exit status, waiting up to 60 s for it} */
    int await() throws Exception {
        return exit.get(60, TimeUnit.SECONDS);
    }

    /** {@return both of the command's outputs, for an assertion's message} */
    String both() {
        return "server out:\n" + out + "\nserver err:\n" + err;
    }
}
