// strftime for the node's clock and locale (UTC, en_US/C names), as ls's long listing and its
// --time-style use it: the conversions a time style names.

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAYS_LONG = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS_LONG = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

const pad = (n: number, w: number, c = "0") => String(n).padStart(w, c);

/** `fmt` at `ms` (UTC); `ns` the nanoseconds %N prints (the file systems here keep milliseconds). */
export function strftime(fmt: string, ms: number, ns = (((ms % 1000) + 1000) % 1000) * 1_000_000): string {
  const d = new Date(ms);
  const h12 = d.getUTCHours() % 12 || 12;
  return fmt.replace(/%([%a-zA-Z+])/g, (m, c: string) => {
    switch (c) {
      case "%": return "%";
      case "a": return DAYS[d.getUTCDay()];
      case "A": return DAYS_LONG[d.getUTCDay()];
      case "b": case "h": return MONTHS[d.getUTCMonth()];
      case "B": return MONTHS_LONG[d.getUTCMonth()];
      case "C": return pad(Math.floor(d.getUTCFullYear() / 100), 2);
      case "d": return pad(d.getUTCDate(), 2);
      case "D": return strftime("%m/%d/%y", ms);
      case "e": return pad(d.getUTCDate(), 2, " ");
      case "F": return strftime("%Y-%m-%d", ms);
      case "H": return pad(d.getUTCHours(), 2);
      case "I": return pad(h12, 2);
      case "j": return pad(Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1, 3);
      case "k": return pad(d.getUTCHours(), 2, " ");
      case "l": return pad(h12, 2, " ");
      case "m": return pad(d.getUTCMonth() + 1, 2);
      case "M": return pad(d.getUTCMinutes(), 2);
      case "n": return "\n";
      case "N": return pad(ns, 9);
      case "p": return d.getUTCHours() < 12 ? "AM" : "PM";
      case "P": return d.getUTCHours() < 12 ? "am" : "pm";
      case "r": return strftime("%I:%M:%S %p", ms);
      case "R": return strftime("%H:%M", ms);
      case "s": return String(Math.floor(ms / 1000));
      case "S": return pad(d.getUTCSeconds(), 2);
      case "t": return "\t";
      case "T": return strftime("%H:%M:%S", ms);
      case "u": return String(d.getUTCDay() || 7);
      case "w": return String(d.getUTCDay());
      case "y": return pad(d.getUTCFullYear() % 100, 2);
      case "Y": return String(d.getUTCFullYear());
      case "z": return "+0000";
      case "Z": return "UTC";
      default: return m;
    }
  });
}
