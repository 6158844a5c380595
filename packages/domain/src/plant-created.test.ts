import { describe, expect, it } from 'vitest';
import { plantCreated } from './plant-created.ts';

describe('plantCreated', () => {
  it('when a plant is given, then the event is plain data carrying exactly the plant', () => {
    const event = plantCreated({ id: 9223372036854775807n, name: 'Monstera', tag: '' });
    expect(event).toStrictEqual({
      type: 'plant.created',
      plant: { id: 9223372036854775807n, name: 'Monstera', tag: '' },
    });
    expect(structuredClone(event)).toStrictEqual(event);
  });

  it('when the plant has no tag or extra keys, then the event has neither', () => {
    const plant = { id: -1n, name: 'Fern', colour: 'green' };
    expect(plantCreated(plant).plant).toStrictEqual({ id: -1n, name: 'Fern' });
  });

  it('when the plant object changes later, then the event does not', () => {
    const plant = { id: 1n, name: 'Fern' };
    const event = plantCreated(plant);
    plant.name = 'Palm';
    expect(event.plant.name).toBe('Fern');
  });
});
