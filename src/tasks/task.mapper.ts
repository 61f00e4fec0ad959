import { TaskDto } from './dto/task.dto';
import { TaskEntity } from './task.entity';

export function toTaskDto(task: TaskEntity): TaskDto {
  return {
    id: task.id,
    team_id: task.teamId,
    owner_user_id: task.ownerUserId,
    namespace: task.namespace,
    title: task.title,
    labels: task.labels,
    created_at: task.createdAt.toISOString(),
    updated_at: task.updatedAt.toISOString(),
  };
}
