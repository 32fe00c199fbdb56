// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import java.text.MessageFormat;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link System.Logger} that keeps every record, so tests can check what discovery reported and how often. */
final class RecordingLogger implements System.Logger {

    /** One log call. */
    record Entry(Level level, String message, Throwable thrown) {
    }

    private final List<Entry> entries = new CopyOnWriteArrayList<>();

    List<Entry> entries() {
        return List.copyOf(entries);
    }

    /**
     * {@return the records above DEBUG: the problems discovery reports, without the announcement it makes before
     * each provider call or the stack traces it adds at DEBUG}
     */
    List<Entry> problems() {
        return entries.stream().filter(e -> e.level().getSeverity() > Level.DEBUG.getSeverity()).toList();
    }

    /** {@return the records at a level whose message contains the text} */
    List<Entry> find(Level level, String text) {
        return entries.stream().filter(e -> e.level() == level && e.message().contains(text)).toList();
    }

    @Override
    public String getName() {
        return DatRegistry.LOGGER_NAME;
    }

    @Override
    public boolean isLoggable(Level level) {
        return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        entries.add(new Entry(level, msg, thrown));
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        entries.add(new Entry(level, params == null || params.length == 0 ? format
                : MessageFormat.format(format, params), null));
    }
}
