/**
 * @module evolution/classify
 * From what a change does to the values a schema accepts, and which way those values travel, to
 * who it breaks; and the sentence that says what to do about it. This is where variance lives:
 * a request value narrowed refuses what OLD clients send, a request value widened lets NEW
 * clients send what OLD servers refuse; a response value widened can reach OLD clients that were
 * not written for it, a response value narrowed makes OLD servers' answers non-conforming.
 */
import type { Breaks, Direction, Effect } from './types.js';

export const compatible: Breaks = { clients: false, servers: false };
export const breaksBoth: Breaks = { clients: true, servers: true };
export const breaksClients: Breaks = { clients: true, servers: false };
export const breaksServers: Breaks = { clients: false, servers: true };

export function breaksOf(effect: Effect, direction: Direction): Breaks {
  if (effect === 'none') return compatible;
  if (effect === 'both') return breaksBoth;
  const clients = direction === 'request' ? effect === 'narrows' : effect === 'widens';
  return { clients, servers: !clients };
}

/** The effect of two effects at once (a property both added and required, say). */
export function combine(a: Effect, b: Effect): Effect {
  if (a === 'none') return b;
  if (b === 'none' || a === b) return a;
  return 'both';
}

/** What a person should do about a change, by who it breaks and which way its values travel. */
export function adviceFor(breaks: Breaks, direction: Direction | undefined): string {
  if (!breaks.clients && !breaks.servers) return 'No client or server needs to change.';
  const clients = {
    request:
      'clients written against OLD may send requests NEW refuses or treats differently: update clients before the server changes, or keep accepting the old form',
    response:
      'clients written against OLD may receive answers they were not written for: make clients handle them before servers send them',
    none: 'clients written against OLD may be refused or get answers they were not written for: update them',
  };
  const servers = {
    request: 'servers implementing OLD refuse or ignore what NEW lets clients send: update servers before clients rely on it',
    response: 'servers implementing OLD may answer what NEW no longer allows: update servers',
    none: 'servers implementing OLD no longer conform to NEW: update them',
  };
  const parts = [breaks.clients ? clients[direction ?? 'none'] : '', breaks.servers ? servers[direction ?? 'none'] : ''].filter(Boolean);
  const text = parts.join('; and ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}
