import { describe, expect, it } from 'vitest';
import { bodyShapes } from './hostile.ts';

describe('hostile bodies', () => {
  it('every shape is valid JSON of exactly 60,000 bytes, so that each costs what its shape does, not its size', () => {
    const shapes = bodyShapes(-(2n ** 62n));
    expect(shapes.map((shape) => shape.key)).toContain('deep-nesting');
    for (const shape of shapes) {
      expect(Buffer.byteLength(shape.body), shape.key).toBe(60_000);
      expect(() => JSON.parse(shape.body), shape.key).not.toThrow();
    }
  });
});
