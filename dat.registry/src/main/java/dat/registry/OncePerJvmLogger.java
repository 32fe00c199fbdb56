// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import java.util.ResourceBundle;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The registry's default logger: passes each distinct record on once per JVM, and every repeat at
 * {@link Level#DEBUG}. Discovery runs on every {@link DatRegistry#load()} (a TCK run loads once per rule), and a
 * provider that is unavailable is news once, not once per load; a new reason is a new record and is logged.
 */
final class OncePerJvmLogger implements System.Logger {

    /**
     * Distinct records remembered before repeats are passed on again: a process whose providers keep finding new
     * reasons must not grow this set without end.
     */
    static final int MAX_REMEMBERED = 4096;

    private static final OncePerJvmLogger REGISTRY = new OncePerJvmLogger(System.getLogger(DatRegistry.LOGGER_NAME));

    private final System.Logger delegate;
    private final Set<String> logged = ConcurrentHashMap.newKeySet();

    /** @param delegate where records go */
    OncePerJvmLogger(System.Logger delegate) {
        this.delegate = delegate;
    }

    /** {@return the logger every registry built without {@link DatRegistry.Builder#logger} shares} */
    static OncePerJvmLogger registry() {
        return REGISTRY;
    }

    @Override
    public String getName() {
        return delegate.getName();
    }

    @Override
    public boolean isLoggable(Level level) {
        return delegate.isLoggable(level);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
        delegate.log(firstTime(level, msg) ? level : Level.DEBUG, bundle, msg, thrown);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
        delegate.log(firstTime(level, format) ? level : Level.DEBUG, bundle, format, params);
    }

    private boolean firstTime(Level level, String text) {
        if (level.getSeverity() <= Level.DEBUG.getSeverity()) {
            return true;
        }
        String key = level.getName() + ' ' + text;
        if (logged.size() >= MAX_REMEMBERED) {
            return !logged.contains(key);
        }
        return logged.add(key);
    }
}
