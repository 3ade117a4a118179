/**
 * A prompt's location as providers take it. A location is free text on the prompt (`US`, `UK`,
 * `Berlin, Germany`); a two-letter country code is sent as the provider's country field
 * (ISO 3166-1 alpha-2, with the common `UK` meaning `GB`); anything else is sent where the provider
 * takes a place name (a city or a SerpApi `location`), or described in the question's instructions
 * where it takes none. '' is no location: the provider's default.
 */
export interface PlaceOf {
  /** ISO 3166-1 alpha-2, upper case, when the location is a country code. */
  country: string | undefined;
  /** The location as written, when it is not a country code. */
  place: string | undefined;
}

export function placeOf(location: string): PlaceOf {
  const text = location.trim();
  if (text === '') return { country: undefined, place: undefined };
  if (/^[A-Za-z]{2}$/.test(text)) {
    const code = text.toUpperCase();
    return { country: code === 'UK' ? 'GB' : code, place: undefined };
  }
  return { country: undefined, place: text };
}
